/**
 * A graceful stop on SIGTERM or SIGINT: `/readyz` says "stopping", no new connections, the requests in flight
 * finished, then the housekeeping stopped and the database closed. The whole stop takes at most SHUTDOWN_TIMEOUT_MS:
 * at four fifths of it the connections still open are closed, and at its end the process exits whatever the
 * database is doing (a PGlite that stopped answering, say): what was committed is on disk.
 */
import type { Server } from "node:http";
import type { Logger } from "pino";
import type { Health } from "../health.js";

export function stopGracefullyOnSignals(
  server: Server,
  logger: Logger,
  close: () => Promise<void>,
  { health, timeoutMs }: { health: Health; timeoutMs: number },
): void {
  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    health.stopping = true;
    logger.info({ signal }, "shutting down: finishing requests in flight");
    const force = setTimeout(() => {
      logger.warn({ afterMs: Math.round(timeoutMs * 0.8) }, "requests still in flight; closing their connections");
      server.closeAllConnections();
    }, timeoutMs * 0.8);
    force.unref();
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs }, "the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting without a clean close");
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    // Connections that finish their request while we drain go idle; close them as they do.
    const drain = setInterval(() => server.closeIdleConnections(), 50);
    server.close(async () => {
      clearInterval(drain);
      await close();
      logger.info("stopped");
      process.exit(0);
    });
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
