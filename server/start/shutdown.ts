/**
 * A graceful stop on SIGTERM or SIGINT: no new connections, the requests in flight finished (forced after 10 s), then
 * the housekeeping stopped and the database closed.
 */
import type { Server } from "node:http";
import type { Logger } from "pino";

export function stopGracefullyOnSignals(server: Server, logger: Logger, close: () => Promise<void>): void {
  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing requests in flight");
    const force = setTimeout(() => {
      logger.warn("requests still in flight after 10 s; closing anyway");
      server.closeAllConnections();
    }, 10_000);
    force.unref();
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
