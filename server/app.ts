import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import express, { type Express, type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";
import { operationTable } from "../generated/operations.js";
import { Admission } from "./admission.js";
import { authenticate } from "./auth.js";
import { bindAll } from "./bind.js";
import type { Config } from "./config.js";
import { ApiError, errorHandler } from "./errors.js";
import type { Handlers } from "./handler-types.js";
import { answerTimeout, urlLengthLimit } from "./http-server.js";
import { echoIdempotencyKey } from "./idempotency.js";
import { KeyCache } from "./key-cache.js";
import { messages } from "./messages.js";
import { DatabaseTokenBuckets, rateLimit, TokenBuckets } from "./rate-limit.js";
import { operationFor, pathPatternSource } from "./request-metadata.js";
import { refuseUnstorableInput } from "./request-rules.js";
import { apiSecurityHeaders, corsFor, docsSecurityHeaders } from "./security.js";
import type { Store } from "./store/store.js";

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

/** Matches the paths of the spec's operations, whatever the method: those need an API key. */
function apiPathPattern(): RegExp {
  const paths = Object.values(operationTable).map((entry) => pathPatternSource(entry.path));
  return new RegExp(`^(?:${[...new Set(paths)].join("|")})/?$`);
}

export function createApp({ store, handlers, logger, config }: AppDependencies): Express {
  const apiSpec = JSON.parse(readFileSync(specPath, "utf8"));
  const admission = new Admission({
    all: { maxInFlight: config.maxInFlight, maxQueue: config.maxQueued, maxWaitMs: config.queueTimeoutMs },
    expensive: {
      maxInFlight: config.maxExpensiveInFlight,
      maxQueue: config.maxExpensiveQueued,
      maxWaitMs: config.queueTimeoutMs,
    },
    deepOffset: config.deepPageOffset,
  });
  const bound = bindAll(handlers, {
    store,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    admission,
    statementTimeoutMs: config.statementTimeoutMs,
  });
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const given = req.headers["x-request-id"];
        const id = typeof given === "string" && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
        res.setHeader("X-Request-Id", id);
        return id;
      },
      redact: ["req.headers.authorization", 'req.headers["idempotency-key"]'],
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : "info"),
    }),
  );

  app.use(apiSecurityHeaders);
  if (config.corsOrigins.length > 0) app.use(corsFor(config.corsOrigins));
  app.use(urlLengthLimit(config.maxUrlLength));

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

  const apiPaths = apiPathPattern();
  const requireApiKey = authenticate(
    store,
    config.defaultRetentionDays,
    new KeyCache(config.apiKeyCacheSeconds * 1000),
  );
  const onApiPaths =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      apiPaths.test(req.path) ? handler(req, res, next) : next();
  app.use(onApiPaths(requireApiKey));
  if (config.rateLimitPerMinute > 0) {
    const burst = Math.max(1, config.rateLimitBurst);
    const buckets =
      config.rateLimitStore === "database"
        ? new DatabaseTokenBuckets(store.rateLimits, config.rateLimitPerMinute, burst)
        : new TokenBuckets(config.rateLimitPerMinute, burst);
    app.use(rateLimit(buckets, logger));
  }

  app.use(express.json({ limit: config.bodyLimitBytes, strict: false }));
  // Receiving a request too slowly is Node's 408 (http-server.ts); answering too slowly is this 503.
  app.use(answerTimeout(config.requestTimeoutMs));
  app.use(echoIdempotencyKey);
  app.use(onApiPaths(refuseUnstorableInput));
  app.use(
    OpenApiValidator.middleware({
      apiSpec,
      // Unknown query parameters are reported by errors.ts together with the other invalid inputs.
      validateRequests:
        config.validateRequests === false ? false : { allowUnknownQueryParameters: true, allErrors: true },
      validateResponses: config.validateResponses ? { allErrors: true } : false,
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: "full" },
      operationHandlers: {
        basePath: "/",
        resolver: (_basePath, route) => {
          const id = operationFor(route.method, route.openApiRoute);
          if (!id) throw new Error(`No operation for ${route.method} ${route.openApiRoute}`);
          return bound[id];
        },
      },
    }),
  );
  app.use((req, _res, next) => next(ApiError.notFound(messages.routeNotFound(req.method, req.path))));
  app.use(errorHandler(logger, config.bodyLimitBytes));
  return app;
}
