/**
 * `createApp(options)`: an Express app that serves the contract and nothing else: the router (router.ts), a 414 for
 * an overlong URL, a 405 for a contract path asked with another method, and the error shape for every path it does
 * not know. Serve it with `createHttpServer(app)`, whose
 * own refusals (431, 408, bytes that are not HTTP) are in the error shape too.
 */
import express, { type Express } from "express";
import { errorHandler, methodNotAllowed, notFound } from "./error-handler.js";
import { requireHost, urlLengthLimit } from "./http-server.js";
import { stderrLogger } from "./logger.js";
import { createRouter, type RouterOptions } from "./router.js";

export type AppOptions<Transaction = undefined> = RouterOptions<Transaction> & {
  /** Longest request URL, 414 above it (default 8192). */
  maxUrlLength?: number | undefined;
};

export function createApp<Transaction = undefined>(options: AppOptions<Transaction>): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requireHost);
  app.use(urlLengthLimit(options.maxUrlLength ?? 8192));
  app.use(createRouter(options));
  app.use(methodNotAllowed);
  app.use(notFound);
  app.use(errorHandler(options.logger ?? stderrLogger));
  return app;
}
