/**
 * A start of the reference server, step by step (server/start/): open the database (demo data into an empty one),
 * refuse the public demo keys in production, start the housekeeping, listen, announce the URLs and keys (a JSON ready
 * line, then a banner), and stop gracefully on SIGTERM or SIGINT.
 */
import pino from "pino";
import { createServerApp } from "./app.js";
import type { Config } from "./config.js";
import { atOnceHandlers, handlers } from "./handlers/index.js";
import { Health } from "./health.js";
import { demoKeysIn, refusePublicDemoKeys } from "./start/demo-keys.js";
import { startHousekeeping } from "./start/housekeeping.js";
import { listen } from "./start/listen.js";
import { openDatabase } from "./start/open-database.js";
import { announceReady } from "./start/ready.js";
import { stopGracefullyOnSignals } from "./start/shutdown.js";

export { StartRefused } from "./start/demo-keys.js";
export { type ReadyLine, readyLineIn } from "./start/ready.js";

/** Runs the reference server until SIGTERM or SIGINT. */
export async function runServer(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const database = await openDatabase(config, logger);
  const health = new Health(() => database.store.ping(), logger, database.location);
  let housekeeping: Awaited<ReturnType<typeof startHousekeeping>> | undefined;
  const close = async () => {
    await housekeeping?.stop();
    await database.close();
  };
  try {
    await refusePublicDemoKeys(database.store, config, logger);
    housekeeping = await startHousekeeping(database.opened, config, logger);
    const { server, base } = await listen(
      createServerApp({ store: database.store, handlers, atOnce: atOnceHandlers, logger, config, health }),
      config,
      logger,
    );
    announceReady(base, database.location, await demoKeysIn(database.store, database.demo.seed), config, logger);
    stopGracefullyOnSignals(server, logger, close, { health, timeoutMs: config.shutdownTimeoutMs });
  } catch (error) {
    await close();
    throw error;
  }
}
