/**
 * `createRouter(options)`: the whole request pipeline of the contract as one Express router, to mount at the root of
 * an app. It answers the contract's paths and passes every other request on: authentication, rate limiting, body
 * parsing, the request rules, validation against the bundled spec, the handlers bound by operationId, and Novu's
 * error bodies for every failure on the way.
 */
import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import { operationTable } from "@novu-query/contract/operations";
import express, { type Request, type Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { Admission, type CostOf, type LimiterOptions } from "./admission.js";
import { type Authenticate, apiKeyAuthentication, type Caller } from "./authenticate.js";
import { bindAll, missingHandlers } from "./bind.js";
import { errorHandler } from "./error-handler.js";
import type { ApiError } from "./errors.js";
import type { Handlers, Services } from "./handler-types.js";
import { answerTimeout } from "./http-server.js";
import { echoIdempotencyKey, type IdempotencyStore } from "./idempotency.js";
import { type Logger, stderrLogger } from "./logger.js";
import { MemoryRateLimitStore } from "./memory-rate-limit.js";
import { type RateLimitStore, rateLimit } from "./rate-limit.js";
import { operationOf, pathPatternSource } from "./request-metadata.js";
import { refuseUnstorableInput } from "./request-rules.js";

type ServicesHook<Transaction> = (request: Request, transaction: Transaction | undefined) => Services;

interface PipelineOptions<Transaction> {
  /** One handler per operationId (`npx novu-query-express init` writes them); an operation without one answers 501. */
  handlers: Partial<Handlers>;
  /** Looks an API key up: what handlers get as `context.auth`, or undefined for 401 `API Key not found`. */
  authenticate: Authenticate;
  /** Where failed requests (with their errorId) and warnings are logged; pino fits. Default: JSON lines on stderr. */
  logger?: Logger | undefined;
  /**
   * `idempotency-key` on PATCH, as Novu honours it; off unless given. `MemoryIdempotencyStore` is right for one
   * instance; several need a store they share. `scope` says whose keys a request's key is among (default: its API key).
   */
  idempotency?:
    | { store: IdempotencyStore<Transaction>; ttlSeconds?: number; scope?: (caller: Caller) => string }
    | undefined;
  /** A token bucket per API key with Novu's RateLimit headers; off unless given. Default store: this process. */
  rateLimit?: { perMinute: number; burst?: number; store?: RateLimitStore } | undefined;
  /**
   * How many requests run their handlers at once, how many wait for a turn and how long; past that, 503 with
   * `Retry-After`. Requests `cost` calls expensive also need one of the `expensive` turns first. Off unless given.
   */
  admission?: { all: LimiterOptions; expensive?: LimiterOptions; cost?: CostOf } | undefined;
  /** Check every answer against the spec; a mismatch is logged and answered 500. Default: on unless NODE_ENV is production. */
  validateResponses?: boolean | undefined;
  /** Request validation: on. Off only to measure what it costs: handlers then get unchecked input. */
  validateRequests?: boolean | undefined;
  /** Largest request body in bytes, 413 above it (default 102400). */
  bodyLimitBytes?: number | undefined;
  /** A request still unanswered after this long is answered 503 (default 30000). */
  answerTimeoutMs?: number | undefined;
  /** Errors of yours that have a documented answer (a cancelled statement as 503, say): the ApiError, else undefined. */
  translateError?: ((error: unknown) => ApiError | undefined) | undefined;
}

/** `services` is required once your `Services` declares a field. */
type ServicesOption<Transaction> =
  Partial<Services> extends Services
    ? { services?: ServicesHook<Transaction> | undefined }
    : { services: ServicesHook<Transaction> };

export type RouterOptions<Transaction = undefined> = PipelineOptions<Transaction> & ServicesOption<Transaction>;

/** Matches the paths of the contract's operations, whatever the method. */
function apiPathPattern(): RegExp {
  const paths = Object.values(operationTable).map((entry) => pathPatternSource(entry.path));
  return new RegExp(`^(?:${[...new Set(paths)].join("|")})/?$`);
}

export function createRouter<Transaction = undefined>(options: RouterOptions<Transaction>): Router {
  const logger = options.logger ?? stderrLogger;
  const missing = missingHandlers(options.handlers);
  if (missing.length > 0) logger.warn({ operations: missing }, "no handler for these operations: they answer 501");
  const services: ServicesHook<Transaction> = options.services ?? (() => ({}) as Services);
  const { idempotency, admission } = options;
  const bound = bindAll(options.handlers, {
    services,
    idempotency: idempotency && {
      store: idempotency.store,
      ttlSeconds: idempotency.ttlSeconds ?? 86_400,
      scope: idempotency.scope ?? ((caller) => caller.keyHash),
    },
    admission: admission && {
      turns: new Admission({ all: admission.all, expensive: admission.expensive ?? admission.all }),
      cost: admission.cost ?? (() => "cheap"),
    },
    translateError: options.translateError,
  });

  const api = express.Router();
  api.use(apiKeyAuthentication(options.authenticate));
  if (options.rateLimit) {
    const { perMinute, burst = perMinute, store = new MemoryRateLimitStore() } = options.rateLimit;
    api.use(rateLimit(store, { perMinute, burst: Math.max(1, burst) }, logger));
  }
  api.use(express.json({ limit: options.bodyLimitBytes ?? 102_400, strict: false }));
  // Receiving a request too slowly is Node's 408 (createHttpServer); answering too slowly is this 503.
  api.use(answerTimeout(options.answerTimeoutMs ?? 30_000));
  if (idempotency) api.use(echoIdempotencyKey);
  api.use(refuseUnstorableInput);
  api.use(
    OpenApiValidator.middleware({
      // The validator annotates the document it is given: each router gets its own.
      apiSpec: structuredClone(spec) as never,
      // Unknown query parameters are reported by request-rules.ts together with the other invalid inputs.
      validateRequests:
        options.validateRequests === false ? false : { allowUnknownQueryParameters: true, allErrors: true },
      validateResponses:
        (options.validateResponses ?? process.env.NODE_ENV !== "production") ? { allErrors: true } : false,
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: "full" },
    }),
  );
  // The validator has matched the request to its operation (404 and 405 otherwise): its handler runs. (Not through
  // the validator's `operationHandlers`, which route every request a second time through an Express router.)
  api.use((req, res, next) => {
    const id = operationOf(req);
    return id ? bound[id](req, res, next) : next();
  });
  api.use(errorHandler(logger));

  const apiPaths = apiPathPattern();
  const router = express.Router();
  router.use((req, res, next) => (apiPaths.test(req.path) ? api(req, res, next) : next()));
  return router;
}
