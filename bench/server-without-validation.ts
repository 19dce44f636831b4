/**
 * The reference server exactly as `npm start` builds it in production mode, but with request validation off: the
 * benchmark's baseline for what validation costs. Never a way to run the service (handlers get unchecked input).
 * Prints "API <url>". Same environment variables as the server (DATABASE_URL, DATABASE_POOL_SIZE, ...).
 */
import type { AddressInfo } from "node:net";
import { createHttpServer } from "@novu-query/express";
import pino from "pino";
import { createServerApp } from "../server/app.js";
import { loadConfig } from "../server/config.js";
import { atOnceHandlers, handlers } from "../server/handlers/index.js";
import { openStore } from "../server/store/store.js";

const config = loadConfig();
const logger = pino({ level: config.logLevel });
const opened = await openStore({ ...config, databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const app = createServerApp({
  store: opened.store,
  handlers,
  atOnce: atOnceHandlers,
  logger,
  config: { ...config, validateRequests: false },
});
const server = createHttpServer(app, config, logger).listen(config.port, config.host, () => {
  process.stdout.write(
    `${JSON.stringify({ msg: "ready", api: `http://${config.host}:${(server.address() as AddressInfo).port}` })}\n`,
  );
});
process.on("SIGTERM", () => {
  server.close(() => void opened.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
