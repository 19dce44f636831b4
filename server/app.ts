/**
 * The reference server's app: the skeleton's router (@novu-query/express) around this server's handlers and store,
 * with what a deployed service adds around it: request logs and ids, security headers, CORS, the health check, the
 * spec and the rendered docs.
 */
import {
  type AtOnceHandlers,
  createRouter,
  errorHandler,
  type Handlers,
  MemoryRateLimitStore,
  methodNotAllowed,
  notFound,
  requireHost,
  urlLengthLimit,
} from "@novu-query/express";
import express, { type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import { environmentKeys } from "./auth.js";
import type { Config } from "./config.js";
import { costOf } from "./cost.js";
import { databaseErrorAnswer } from "./database-errors.js";
import { DatabaseIdempotencyStore } from "./database-idempotency.js";
import { DatabaseRateLimitStore } from "./database-rate-limit.js";
import { Health, type HealthState } from "./health.js";
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
  /**
   * Operations whose work and stored answer the store does in one step for a request with an idempotency key
   * (handlers/index.ts `atOnceHandlers`, D68); without it every such request runs in an idempotency session.
   */
  atOnce?: AtOnceHandlers;
  logger: Logger;
  /** What the health probes report (the start makes one naming where the data is); default: one over `store`. */
  health?: Health;
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

/** `/healthz` or `/readyz`: 200 `{ status: "ok" }`, or 503 with `Retry-After` and what is wrong. */
function probe(check: () => Promise<HealthState>): RequestHandler {
  return async (_req, res) => {
    const state = await check();
    if (state.ok) res.json({ status: "ok" });
    else res.status(503).set("Retry-After", "5").json({ status: state.reason, detail: state.detail });
  };
}

/**
 * Tells the health of each write acknowledged: a PATCH answered 2xx that was not an idempotent replay (the skeleton
 * answers after its transaction commits), so that the probes stop saying "storage full" as soon as space is back.
 */
function noteWrites(health: Health): RequestHandler {
  return (req, res, next) => {
    if (req.method === "PATCH") {
      res.once("finish", () => {
        if (res.statusCode >= 200 && res.statusCode < 300 && !res.hasHeader("idempotency-replay")) health.noteWrite();
      });
    }
    next();
  };
}

export function createServerApp({ store, handlers, atOnce, logger, config, ...rest }: AppDependencies): Express {
  const health = rest.health ?? new Health(() => store.ping(), logger, "the database");
  const translateError = (error: unknown) => {
    health.noteError(error);
    return databaseErrorAnswer(error, config.statementTimeoutMs);
  };
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", config.trustProxy);

  app.use(requestLog(logger));
  app.use(noteWrites(health));
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
      retentionOf: (auth) => auth.effectiveRetentionDays,
      // A key lookup waits on the database as a statement does: as long as one may run.
      keyLookupTimeoutMs: config.statementTimeoutMs || 5000,
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
        atOnce,
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
      translateError,
      validateRequests: config.validateRequests,
      validateResponses: config.validateResponses,
      bodyLimitBytes: config.bodyLimitBytes,
      answerTimeoutMs: config.requestTimeoutMs,
    }),
  );
  // After the API, so that API requests do not test these paths first.
  app.get(
    "/healthz",
    probe(() => health.check()),
  );
  app.get(
    "/readyz",
    probe(() => health.ready()),
  );
  app.get("/openapi.json", (_req, res) => res.sendFile(specPath.pathname));
  app.get("/openapi.yaml", (_req, res) => res.type("application/yaml").sendFile(specYamlPath.pathname));
  app.get(["/docs", "/docs/"], docsSecurityHeaders, (_req, res) => res.sendFile(docsPath.pathname));
  app.use(methodNotAllowed);
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
