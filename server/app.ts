/**
 * The reference server's app: the skeleton's router (@novu-query/express) around this server's handlers and store,
 * with what a deployed service adds around it: request logs and ids, security headers, CORS, the health check, the
 * spec and the rendered docs.
 */
import {
  ApiError,
  createRouter,
  errorHandler,
  type Handlers,
  MemoryRateLimitStore,
  messages,
  methodNotAllowed,
  notFound,
  requireHost,
  urlLengthLimit,
} from "@novu-query/express";
import express, { type Express } from "express";
import type { Logger } from "pino";
import { environmentKeys } from "./auth.js";
import type { Config } from "./config.js";
import { costOf } from "./cost.js";
import { DatabaseIdempotencyStore } from "./database-idempotency.js";
import { DatabaseRateLimitStore } from "./database-rate-limit.js";
import { KeyCache } from "./key-cache.js";
import { requestLog } from "./request-log.js";
import { apiSecurityHeaders, corsFor, docsSecurityHeaders } from "./security.js";
import type { Store } from "./store/store.js";

declare module "@novu-query/express" {
  interface Services {
    /**
     * The store, bound to the request's transaction when the operation runs in one (an idempotent PATCH). Reads go
     * to `store.subscribers` / `store.notifications`, which use the read replica when `DATABASE_READ_URL` is set.
     */
    store: Store;
  }
}

const specPath = new URL("../generated/openapi.json", import.meta.url);
const specYamlPath = new URL("../generated/openapi.yaml", import.meta.url);
const docsPath = new URL("../generated/docs/index.html", import.meta.url);

export interface AppDependencies {
  store: Store;
  handlers: Handlers;
  logger: Logger;
  /**
   * Request validation is on unless `validateRequests` is false, which only the benchmark sets (to measure what
   * validation costs): without it, handlers receive unchecked, uncoerced input.
   */
  config: { validateRequests?: boolean } & Pick<
    Config,
    | "validateResponses"
    | "bodyLimitBytes"
    | "idempotencyTtlSeconds"
    | "idempotencyMaxBytesPerEnvironment"
    | "trustProxy"
    | "defaultRetentionDays"
    | "rateLimitPerMinute"
    | "rateLimitBurst"
    | "rateLimitStore"
    | "corsOrigins"
    | "requestTimeoutMs"
    | "maxUrlLength"
    | "apiKeyCacheSeconds"
    | "statementTimeoutMs"
    | "maxInFlight"
    | "maxQueued"
    | "queueTimeoutMs"
    | "maxExpensiveInFlight"
    | "maxExpensiveQueued"
    | "deepPageOffset"
  >;
}

/** PostgreSQL cancelled the statement (SQLSTATE 57014): the statement timeout, or an administrator's cancel. */
function isQueryCancelled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "57014";
}

/**
 * The 503 for a cancelled statement. Whatever the request had done rolled back with it (a PATCH runs in one
 * transaction with its idempotency record), so a retry, with the same idempotency key or not, starts afresh.
 */
function cancelled(statementTimeoutMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil((statementTimeoutMs || 1000) / 1000));
  return new ApiError(503, messages.statementTimeout(statementTimeoutMs), { "Retry-After": String(seconds) });
}

export function createServerApp({ store, handlers, logger, config }: AppDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", config.trustProxy);

  app.use(requestLog(logger));
  app.use(apiSecurityHeaders);
  if (config.corsOrigins.length > 0) app.use(corsFor(config.corsOrigins));
  app.use(requireHost);
  app.use(urlLengthLimit(config.maxUrlLength));

  const queue = { maxWaitMs: config.queueTimeoutMs };
  app.use(
    createRouter({
      handlers,
      logger,
      authenticate: environmentKeys(store, config.defaultRetentionDays, new KeyCache(config.apiKeyCacheSeconds * 1000)),
      services: (_req, transaction) => ({ store: transaction ?? store }),
      idempotency: {
        store: new DatabaseIdempotencyStore(store, {
          maxBytesPerEnvironment: config.idempotencyMaxBytesPerEnvironment,
          onDeleted: (environmentId, deleted) =>
            logger.info(
              { environmentId, deleted },
              "deleted the oldest idempotent answers past the environment's bound",
            ),
        }),
        ttlSeconds: config.idempotencyTtlSeconds,
      },
      rateLimit:
        config.rateLimitPerMinute > 0
          ? {
              perMinute: config.rateLimitPerMinute,
              burst: config.rateLimitBurst,
              store:
                config.rateLimitStore === "database"
                  ? new DatabaseRateLimitStore(store.rateLimitBuckets)
                  : new MemoryRateLimitStore(),
            }
          : undefined,
      admission: {
        all: { maxInFlight: config.maxInFlight, maxQueue: config.maxQueued, ...queue },
        expensive: { maxInFlight: config.maxExpensiveInFlight, maxQueue: config.maxExpensiveQueued, ...queue },
        cost: (id, input) => costOf(id, input, config.deepPageOffset),
      },
      translateError: (error) => (isQueryCancelled(error) ? cancelled(config.statementTimeoutMs) : undefined),
      validateRequests: config.validateRequests,
      validateResponses: config.validateResponses,
      bodyLimitBytes: config.bodyLimitBytes,
      answerTimeoutMs: config.requestTimeoutMs,
    }),
  );
  // After the API, so that API requests do not test these paths first.
  app.get("/healthz", async (_req, res, next) => {
    try {
      await store.ping();
      res.json({ status: "ok" });
    } catch (error) {
      next(error);
    }
  });
  app.get("/openapi.json", (_req, res) => res.sendFile(specPath.pathname));
  app.get("/openapi.yaml", (_req, res) => res.type("application/yaml").sendFile(specYamlPath.pathname));
  app.get(["/docs", "/docs/"], docsSecurityHeaders, (_req, res) => res.sendFile(docsPath.pathname));
  app.use(methodNotAllowed);
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
