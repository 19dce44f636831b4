import type { Request, RequestHandler } from "express";
import { type OperationId, operationIds, operationTable } from "../generated/operations.js";
import { type Admission, costOf } from "./admission.js";
import { ApiError, errorBody } from "./errors.js";
import type { Handler, HandlerInput, Handlers } from "./handler-types.js";
import { type Outcome, runIdempotently } from "./idempotency.js";
import { messages } from "./messages.js";
import { errorsFor, isDeclared } from "./operation-errors.js";
import { operationMetadata } from "./request-metadata.js";
import { operationRules } from "./request-rules.js";
import type { Store } from "./store/store.js";

export interface BindOptions {
  store: Store;
  idempotencyTtlSeconds: number;
  /** Turns for database work (server/admission.ts); without it, every request runs at once. */
  admission?: Admission | undefined;
  /** The statement timeout the store's connections have, for the 503's message. */
  statementTimeoutMs?: number | undefined;
}

/** PostgreSQL cancelled the statement (SQLSTATE 57014): the statement timeout, or an administrator's cancel. */
function isQueryCancelled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "57014";
}

/**
 * The 503 for a cancelled statement. Whatever the request had done rolled back with it (a PATCH runs in one
 * transaction with its idempotency record), so a retry, with the same idempotency key or not, starts afresh.
 */
function cancelled(statementTimeoutMs: number | undefined): ApiError {
  const seconds = Math.max(1, Math.ceil((statementTimeoutMs ?? 1000) / 1000));
  return new ApiError(503, messages.statementTimeout(statementTimeoutMs ?? 0), {
    "Retry-After": String(seconds),
  });
}

/** Fails at start-up unless the handlers and the spec's operations match one to one. */
export function assertHandlersMatchSpec(handlers: object): void {
  const given = Object.keys(handlers).sort();
  const expected = [...operationIds].sort();
  const missing = expected.filter((id) => !given.includes(id));
  const extra = given.filter((id) => !expected.includes(id as OperationId));
  if (missing.length || extra.length) {
    throw new Error(
      `Handlers do not match the spec. Missing: ${missing.join(", ") || "none"}. Not in the spec: ${extra.join(", ") || "none"}.`,
    );
  }
}

function inputOf<K extends OperationId>(id: K, req: Request): HandlerInput<K> {
  return {
    path: { ...operationMetadata(req)?.pathParams },
    query: { ...operationTable[id].queryDefaults, ...(req.query as object) },
    headers: req.headers,
    body: req.body,
  } as unknown as HandlerInput<K>;
}

/** A handler answered or threw a status its operation does not declare: a bug in the handler, answered 500. */
export class UndeclaredStatusError extends Error {
  constructor(id: OperationId, status: number) {
    super(`the ${id} handler answered ${status}, which the spec does not declare for it`);
    this.name = "UndeclaredStatusError";
  }
}

/**
 * Runs a handler and holds it to its operation's statuses, whatever got past the types: an undeclared status,
 * returned or thrown, becomes an error that the error middleware logs and answers as 500.
 */
async function guarded<K extends OperationId>(id: K, run: () => Promise<Outcome>): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (error) {
    if (error instanceof ApiError && !isDeclared(id, error.status, error)) {
      throw new UndeclaredStatusError(id, error.status);
    }
    throw error;
  }
  if (!isDeclared(id, outcome.status)) throw new UndeclaredStatusError(id, outcome.status);
  return outcome;
}

/** An Express handler that runs the operation's handler and writes its answer (idempotently for PATCH with a key). */
export function bindOperation<K extends OperationId>(id: K, handler: Handler<K>, options: BindOptions): RequestHandler {
  const honoursIdempotency = operationTable[id].method === "patch";
  const errors = errorsFor(id);
  return async (req, res, next) => {
    try {
      const auth = res.locals.auth;
      // authenticate() answers every request without a valid key before it gets here; reaching a handler without
      // auth is a wiring mistake in this server, not the caller's, so it is a 500 (logged with its errorId).
      if (!auth) throw new Error(`${id} was reached without authentication: the API-key middleware is not mounted`);
      const broken = operationRules(id, req);
      if (broken) throw broken;
      const input = inputOf(id, req);
      const key = req.header("idempotency-key");
      const run = (store: Store): Promise<Outcome> => guarded(id, () => handler(input, { auth, store, errors }));
      const work = () =>
        honoursIdempotency && key
          ? runIdempotently(
              options.store,
              {
                environmentId: auth.environmentId,
                key,
                method: req.method,
                path: req.originalUrl,
                body: req.body,
                ttlSeconds: options.idempotencyTtlSeconds,
              },
              run,
              (error) => errorBody(error, req),
            )
          : run(options.store);
      const { admission } = options;
      let outcome: Outcome;
      try {
        outcome = admission ? await admission.run(costOf(id, input, admission.deepOffset), work) : await work();
      } catch (error) {
        throw isQueryCancelled(error) ? cancelled(options.statementTimeoutMs) : error;
      }
      // The answer timeout may have answered 503 already; the work is done (and stored), the late answer is dropped.
      if (res.headersSent) return;
      res.set(outcome.headers ?? {}).status(outcome.status);
      if (outcome.rawBody !== undefined) res.type("application/json").send(outcome.rawBody);
      else res.json(outcome.body);
    } catch (error) {
      next(error);
    }
  };
}

export function bindAll(handlers: Handlers, options: BindOptions): Record<OperationId, RequestHandler> {
  assertHandlersMatchSpec(handlers);
  const bound = {} as Record<OperationId, RequestHandler>;
  for (const id of operationIds) bound[id] = bindOperation(id, handlers[id] as Handler<typeof id>, options);
  return bound;
}
