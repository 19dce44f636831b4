/**
 * `createRouter(options)`: the whole request pipeline of the contract as one Express router, mounted like any other
 * (`app.use(router)` or `app.use("/api", router)`). It claims the contract's method-and-path pairs and passes every
 * other request on to the host app: authentication, rate limiting, body parsing, the request rules, validation
 * against the bundled spec, the handlers bound by operationId, and Novu's error bodies for every failure on the way.
 */
import type { OperationId } from "@novu-query/contract/operations";
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { Admission, type CostOf, type LimiterOptions } from "./admission.js";
import { type Authenticate, apiKeyAuthentication, type Caller } from "./authenticate.js";
import { bindAll, missingHandlers } from "./bind.js";
import { contractOperation, isContractRequest } from "./contract-routes.js";
import { errorHandler } from "./error-handler.js";
import { ApiError } from "./errors.js";
import type { AtOnceHandlers, AuthContext, Handlers, Services } from "./handler-types.js";
import { answerTimeout } from "./http-server.js";
import { echoIdempotencyKey, type IdempotencyStore } from "./idempotency.js";
import { inSequence } from "./in-sequence.js";
import { type Logger, stderrLogger } from "./logger.js";
import { MemoryRateLimitStore } from "./memory-rate-limit.js";
import { messages } from "./messages.js";
import { specOfOperation } from "./operation-spec.js";
import { queryAsSent } from "./query-as-sent.js";
import { type RateLimitStore, rateLimit, UnknownKeyLimiter } from "./rate-limit.js";
import { operationOf } from "./request-metadata.js";
import { refuseUnreadableBody, refuseUnstorableInput } from "./request-rules.js";
import { routeCompiledOnce } from "./route-metadata.js";
import { settleUrlParseWarning } from "./url-parse-warning.js";

type ServicesHook<Transaction> = (request: Request, transaction: Transaction | undefined) => Services;

interface PipelineOptions<Transaction> {
  /** One handler per operationId (`npx novu-query-express init` writes them); an operation without one answers 501. */
  handlers: Partial<Handlers>;
  /** Looks an API key up: what handlers get as `context.auth`, or undefined for 401 `API Key not found`. */
  authenticate: Authenticate;
  /**
   * How long `authenticate` may take when it does not answer at once (a lookup, not a cached key) before the request
   * is answered 503 with `Retry-After` (default 5000; 0: no limit).
   */
  keyLookupTimeoutMs?: number | undefined;
  /**
   * The days of history the caller may read, from what `authenticate` returned (null or undefined: unlimited): a
   * notification list whose window starts before that is answered 402 before its handler runs. Default: none.
   */
  retentionOf?: ((auth: AuthContext) => number | null | undefined) | undefined;
  /** Where failed requests (with their errorId) and warnings are logged; pino fits. Default: JSON lines on stderr. */
  logger?: Logger | undefined;
  /**
   * `idempotency-key` on PATCH, as Novu honours it; off unless given. `MemoryIdempotencyStore` is right for one
   * instance; several need a store they share.
   */
  idempotency?: IdempotencyOptions<Transaction> | undefined;
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
  /**
   * Requests the router leaves to the host app although they match a contract pattern, as `"METHOD /path"` below
   * the mount point: `["GET /v1/notifications/stats"]` lets the host's own route answer beside
   * `GET /v1/notifications/{notificationId}` where the host's routes run after the router (NestJS controllers,
   * Fastify routes); in a plain Express app, declaring the route before the router does the same.
   */
  passThrough?: readonly string[] | undefined;
  /**
   * Errors of yours that have a documented answer (a cancelled statement or a database that cannot be reached as 503,
   * say), thrown by a handler or by `authenticate`: the ApiError, else undefined.
   */
  translateError?: ((error: unknown) => ApiError | undefined) | undefined;
}

interface IdempotencyStoreOptions<Transaction> {
  store: IdempotencyStore<Transaction>;
  /** How long an answer is kept for replay (default 86400, Novu's day). */
  ttlSeconds?: number;
  /**
   * Operations whose work and stored answer your store does in one step (one statement), tried before a session:
   * `AtOnceHandler` says what each must answer. Off unless given; the server's PATCH is one (docs/decisions.md D68).
   */
  atOnce?: AtOnceHandlers | undefined;
}

/** Whose keys a request's key is among: the same key in two scopes never meets. */
type IdempotencyScope = (caller: Caller) => string;

/**
 * A key is scoped to the caller's environment, as the spec says: `AuthContext.environmentId`, which your
 * `authenticate` returns. Without that field in your `AuthContext`, `scope` is required: say whose keys they are.
 */
type IdempotencyOptions<Transaction> = IdempotencyStoreOptions<Transaction> &
  (AuthContext extends { environmentId: string }
    ? { scope?: IdempotencyScope | undefined }
    : { scope: IdempotencyScope });

/** The default scope: the environment `authenticate` said the caller's key belongs to. */
function environmentScope(caller: Caller): string {
  const environmentId = (caller.auth as { environmentId?: unknown }).environmentId;
  if (typeof environmentId !== "string" || environmentId === "") {
    throw new Error(
      "idempotency keys are scoped to the caller's environment, but authenticate returned no environmentId: return it, or pass idempotency.scope",
    );
  }
  return environmentId;
}

/** `services` is required once your `Services` declares a field. */
type ServicesOption<Transaction> =
  Partial<Services> extends Services
    ? { services?: ServicesHook<Transaction> | undefined }
    : { services: ServicesHook<Transaction> };

export type RouterOptions<Transaction = undefined> = PipelineOptions<Transaction> & ServicesOption<Transaction>;

export type ContractRouter = Router & {
  /**
   * The contract's answers for errors raised before the router on the contract's requests (the host app's own
   * `express.json()`: malformed JSON, a body over its limit), every other error passed on to the host's handler.
   * Mount it right after the router, on the same path: `app.use("/api", router.errorHandler)`.
   */
  errorHandler: ErrorRequestHandler;
};

/**
 * 413 at once for a body whose Content-Length is over the limit: before it is read (body-parser would wait to read
 * it off first, and a client that never sends it would meet the receive timeout's 408 instead), or after the host app
 * parsed it (its own `express.json()`). The connection is closed after the answer: the body is not read.
 */
function bodyWithinLimit(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    const length = Number(req.headers["content-length"] ?? 0);
    if (length > limitBytes) {
      const headers: Record<string, string> = req.readableEnded ? {} : { Connection: "close" };
      return next(new ApiError(413, messages.bodyTooLarge(Math.round(limitBytes / 1024)), headers));
    }
    next();
  };
}

/**
 * HEAD of a contract GET is that GET without its body (RFC 9110 §9.3.2): answered as the GET, which Node then sends
 * without a body (its response knows the request was HEAD).
 */
function headAsGet(req: Request, leftToHost: (req: Request) => boolean): void {
  if (req.method !== "HEAD") return;
  const asGet = { method: "GET", path: req.path } as Request;
  if (isContractRequest(asGet) && !leftToHost(asGet)) req.method = "GET";
}

/** `["GET /v1/notifications/stats"]` as a test of a request; throws at start-up for an entry it cannot read. */
function passThroughMatcher(entries: readonly string[]): (req: Request) => boolean {
  const pairs = entries.map((entry) => {
    const match = /^([A-Za-z]+) +(\/\S*)$/.exec(entry.trim());
    if (!match) throw new Error(`passThrough: "${entry}" is not "METHOD /path" (e.g. "GET /v1/notifications/stats")`);
    return { method: (match[1] as string).toUpperCase(), path: (match[2] as string).replace(/(.)\/+$/, "$1") };
  });
  return (req) => pairs.some((pair) => pair.method === req.method && pair.path === req.path.replace(/(.)\/+$/, "$1"));
}

/** Answers are checked against the spec unless switched off, by default unless NODE_ENV is production. */
const validatesResponses = (options: Pick<RouterOptions<unknown>, "validateResponses">) =>
  options.validateResponses ?? process.env.NODE_ENV !== "production";

/**
 * Steps of express-openapi-validator's middleware that do nothing this router needs, each a promise turn a request
 * (D74): `securityMiddleware` checks nothing with `validateSecurity: false` (the router authenticates), and
 * `pathParamsMiddleware` installs `app.param` handlers on the host app (this router reads path parameters from the
 * validator's `req.openapi`, and the host's own routes are the host's). Known by the names upstream gives its steps
 * "to allow traces to be more useful": a step renamed upstream is kept, and runs as it did.
 */
const stepsWithNothingToDo = new Set(["securityMiddleware", "pathParamsMiddleware"]);

/**
 * express-openapi-validator's middleware for each operation, over a spec of that operation alone: its route lookup
 * compiles every path of its spec into a regular expression on every request (upstream's
 * cdimascio/express-openapi-validator#1217), so one path a validator is one compile a request instead of up to four
 * (D72), and that one compiled once (route-metadata.ts, D75). Each is made on its operation's first request: a
 * validator's start (loading its spec, compiling OpenAPI's own schema) takes about 0.1 s of CPU, which the first
 * request of each operation waits for, as the one validator's start held the first request of any before.
 */
function validatorPerOperation(
  options: Pick<RouterOptions<unknown>, "validateRequests" | "validateResponses">,
): (id: OperationId) => RequestHandler {
  const one = (id: OperationId) =>
    inSequence(
      OpenApiValidator.middleware({
        apiSpec: specOfOperation(id) as never,
        // Matched on the URL below the mount point, so that the router works under any prefix
        // (`app.use("/api", ...)`); error bodies still give the whole URL as requested.
        useRequestUrl: true,
        // Unknown query parameters are reported by request-rules.ts together with the other invalid inputs.
        validateRequests:
          options.validateRequests === false ? false : { allowUnknownQueryParameters: true, allErrors: true },
        validateResponses: validatesResponses(options) ? { allErrors: true } : false,
        validateSecurity: false,
        // No operation takes multipart bodies, and refuseUnreadableBody answers 415 to every body that is not JSON
        // before the validator runs: its multer step (an ajv of its own, a promise a request) would never have work
        // (D67).
        fileUploader: false,
        validateFormats: true,
        ajvFormats: { mode: "full" },
      })
        .filter((step) => !stepsWithNothingToDo.has(step.name))
        .map((step) => (step.name === "metadataMiddleware" ? routeCompiledOnce(step) : step)),
    );
  const made = new Map<OperationId, RequestHandler>();
  return (id) => {
    if (!made.has(id)) made.set(id, one(id));
    return made.get(id) as RequestHandler;
  };
}

export function createRouter<Transaction = undefined>(options: RouterOptions<Transaction>): ContractRouter {
  const logger = options.logger ?? stderrLogger;
  settleUrlParseWarning();
  const missing = missingHandlers(options.handlers);
  if (missing.length > 0) logger.warn({ operations: missing }, "no handler for these operations: they answer 501");
  const services: ServicesHook<Transaction> = options.services ?? (() => ({}) as Services);
  const { idempotency, admission } = options;
  const bound = bindAll(options.handlers, {
    services,
    idempotency: idempotency && {
      store: idempotency.store,
      ttlSeconds: idempotency.ttlSeconds ?? 86_400,
      scope: idempotency.scope ?? environmentScope,
      atOnce: idempotency.atOnce,
    },
    admission: admission && {
      turns: new Admission({ all: admission.all, expensive: admission.expensive ?? admission.all }),
      cost: admission.cost ?? (() => "cheap"),
    },
    retentionOf: options.retentionOf,
    validatesResponses: validatesResponses(options),
  });

  // Every step applies to every request the router claims: they run in sequence (D74), not as an Express router's
  // layers, each matched against the path.
  const steps: RequestHandler[] = [queryAsSent];
  if (options.rateLimit) {
    const { perMinute, burst = perMinute, store = new MemoryRateLimitStore() } = options.rateLimit;
    const limits = { perMinute, burst: Math.max(1, burst) };
    // Unknown keys are limited per client address (before their lookup once over); valid keys per key, after it.
    steps.push(
      apiKeyAuthentication(
        options.authenticate,
        new UnknownKeyLimiter(store, limits, logger),
        options.keyLookupTimeoutMs,
      ),
      rateLimit(store, limits, logger),
    );
  } else {
    steps.push(apiKeyAuthentication(options.authenticate, undefined, options.keyLookupTimeoutMs));
  }
  const bodyLimitBytes = options.bodyLimitBytes ?? 102_400;
  steps.push(
    bodyWithinLimit(bodyLimitBytes),
    refuseUnreadableBody,
    express.json({ limit: bodyLimitBytes, strict: false }),
    // Receiving a request too slowly is Node's 408 (createHttpServer); answering too slowly is this 503.
    answerTimeout(options.answerTimeoutMs ?? 30_000),
  );
  if (idempotency) steps.push(echoIdempotencyKey);
  steps.push(refuseUnstorableInput);
  const validatorOf = validatorPerOperation(options);
  // The router claimed only the contract's requests (below): each is one operation, checked by its own validator.
  steps.push((req, res, next) => validatorOf(contractOperation(req) as OperationId)(req, res, next));
  // The validator has attached its operation to the request (`req.openapi`): its handler runs. (Not through
  // the validator's `operationHandlers`, which route every request a second time through an Express router.)
  steps.push((req, res, next) => {
    const id = operationOf(req);
    return id ? bound[id](req, res, next) : next();
  });
  const pipeline = inSequence(steps);
  const answerError = errorHandler(logger, options.translateError);
  // An error of any step is answered in the contract's shape; what the answer itself throws goes on to the host.
  const api: RequestHandler = (req, res, next) =>
    pipeline(req, res, (error?: unknown) => {
      if (error === undefined || error === null) return next();
      try {
        answerError(error, req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    });

  // Only the contract's method-and-path pairs: the host's other routes, HEAD and OPTIONS stay the host's.
  const leftToHost = passThroughMatcher(options.passThrough ?? []);
  const claims = (req: Request) => isContractRequest(req) && !leftToHost(req);
  const router = express.Router() as ContractRouter;
  router.use((req, res, next) => {
    headAsGet(req, leftToHost);
    return claims(req) ? api(req, res, next) : next();
  });
  router.errorHandler = (error, req, res, next) => (claims(req) ? answerError(error, req, res, next) : next(error));
  return router;
}
