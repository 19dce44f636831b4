/**
 * Handlers bound to the contract's operations: each gets its typed input and context, runs (in an admission turn, in
 * an idempotency session for a PATCH with a key), is held to the statuses its operation declares, and its answer is
 * written.
 */
import { declaresInputs, normalised, refusalOf } from "@novu-query/contract/model";
import { type OperationId, operationIds, operationTable } from "@novu-query/contract/operations";
import type { Request, RequestHandler } from "express";
import type { Admission, CostOf } from "./admission.js";
import { type Caller, callerOf } from "./authenticate.js";
import { ApiError, errorBody } from "./errors.js";
import type {
  AtOnceHandler,
  AtOnceHandlers,
  Handler,
  HandlerContext,
  HandlerInput,
  Handlers,
  Services,
} from "./handler-types.js";
import { type AtOnceStep, type IdempotencyStore, type Outcome, runIdempotently } from "./idempotency.js";
import { errorsFor, isDeclared, NotImplementedError } from "./operation-errors.js";
import { operationMetadata } from "./request-metadata.js";
import { operationRules } from "./request-rules.js";
import { isSerialized, serializedBytes, serializedText } from "./serialized.js";
import { markWorkStarted } from "./work-started.js";

export interface BindOptions<Transaction> {
  /** What every handler gets besides `auth` and `errors`; `transaction` is the idempotency session's, if any. */
  services: (request: Request, transaction: Transaction | undefined) => Services;
  idempotency?:
    | {
        store: IdempotencyStore<Transaction>;
        ttlSeconds: number;
        /** Whose keys a request's key is among. */
        scope: (caller: Caller) => string;
        /** Operations whose work and stored answer the store does in one step (handler-types.ts `AtOnceHandler`). */
        atOnce?: AtOnceHandlers | undefined;
      }
    | undefined;
  admission?: { turns: Admission; cost: CostOf } | undefined;
  /** The days of history the caller may read (null: unlimited), for the 402 of a list window older than that. */
  retentionOf?: ((auth: Caller["auth"]) => number | null | undefined) | undefined;
  /**
   * Whether the validator checks answers: it checks what `res.json` is given, so a body handed over as text
   * (serialized.ts) is parsed and given to `res.json` then, and sent as it is otherwise.
   */
  validatesResponses?: boolean | undefined;
}

/**
 * The handlers that are missing (answered 501 until written); throws for a handler of an operation the contract does
 * not have, which is a typo or a stale file.
 */
export function missingHandlers(handlers: object): OperationId[] {
  const given = Object.keys(handlers);
  const extra = given.filter((id) => !(id in operationTable));
  if (extra.length > 0) {
    throw new Error(
      `Handlers do not match the contract: ${extra.join(", ")} ${extra.length === 1 ? "is not an operation" : "are not operations"} of it (its operations: ${operationIds.join(", ")}).`,
    );
  }
  return operationIds.filter((id) => !given.includes(id));
}

/** The handler's input: the spec's defaults filled in, and each declared normalisation applied (date-times in UTC). */
function inputOf<K extends OperationId>(id: K, req: Request): HandlerInput<K> {
  const { authorization: _secret, ...headers } = req.headers;
  const input = {
    path: { ...operationMetadata(req)?.pathParams },
    query: { ...operationTable[id].queryDefaults, ...(req.query as object) },
    body: req.body,
  };
  const inputs = declaresInputs(id) ? normalised(id, input as never) : input;
  return { ...inputs, headers } as unknown as HandlerInput<K>;
}

/**
 * What the contract refuses before any data is read, beyond the validator: the inputs' declared refusals
 * (contract/model/inputs/), in the operation's declared error answers: both cursors and a reversed window (400), a
 * window before the caller's retention (402), a time zone the runtime does not know (422).
 */
function declaredRefusal<K extends OperationId>(
  id: K,
  req: Request,
  caller: Caller,
  retentionOf: BindOptions<unknown>["retentionOf"],
): ApiError | undefined {
  if (!declaresInputs(id)) return undefined;
  const request = { query: req.query as object, path: { ...operationMetadata(req)?.pathParams }, body: req.body ?? {} };
  const refused = refusalOf(id, request as never, { now: new Date(), retentionDays: retentionOf?.(caller.auth) });
  if (!refused) return undefined;
  if (refused.errors) return ApiError.validation(refused.errors);
  return new ApiError(refused.status, refused.message);
}

/** The outcome of work that was never started because its request had been answered: nothing to send. */
const abandoned: Outcome = { status: 503, body: undefined };

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
export function bindOperation<K extends OperationId, Transaction>(
  id: K,
  handler: Handler<K>,
  options: BindOptions<Transaction>,
): RequestHandler {
  const idempotency = operationTable[id].method === "patch" ? options.idempotency : undefined;
  const atOnce = idempotency?.atOnce?.[id] as AtOnceHandler<K> | undefined;
  const errors = errorsFor(id);
  return async (req, res, next) => {
    try {
      const caller = callerOf(res);
      // The pipeline answers every request without a valid key before it gets here; reaching a handler without a
      // caller is a wiring mistake, not the caller's, so it is a 500 (logged with its errorId).
      if (!caller) throw new Error(`${id} was reached without authentication: the API-key middleware is not mounted`);
      const broken = operationRules(id, req) ?? declaredRefusal(id, req, caller, options.retentionOf);
      if (broken) throw broken;
      const input = inputOf(id, req);
      const key = req.header("idempotency-key");
      const contextOf = (transaction: Transaction | undefined): HandlerContext<K> => ({
        ...options.services(req, transaction),
        auth: caller.auth,
        errors,
      });
      const run = (transaction: Transaction | undefined): Promise<Outcome> =>
        guarded(id, () => handler(input, contextOf(transaction)));
      const step: AtOnceStep | undefined =
        atOnce &&
        (async (fingerprint) => {
          const result = await atOnce(input, contextOf(undefined), {
            key: key as string,
            fingerprint,
            ttlSeconds: (idempotency as { ttlSeconds: number }).ttlSeconds,
          });
          if (!result || !("ran" in result)) return result;
          return { held: false, ran: await guarded(id, async () => result.ran), storedBytes: result.storedBytes };
        });
      const work = () => {
        // Answered already (the answer timeout while it waited for a turn, or Node's 408): it never starts, so that
        // the answer it got ("please retry") stays true.
        if (res.headersSent || res.destroyed) return Promise.resolve(abandoned);
        markWorkStarted(res);
        return idempotency && key
          ? runIdempotently(
              idempotency.store,
              {
                scope: idempotency.scope(caller),
                key,
                method: req.method,
                path: req.originalUrl,
                body: req.body,
                ttlSeconds: idempotency.ttlSeconds,
              },
              run,
              (error) => errorBody(error, req),
              step,
            )
          : run(undefined);
      };
      const { admission } = options;
      const outcome = admission ? await admission.turns.run(admission.cost(id, input), work) : await work();
      // The answer timeout may have answered 503 already; the work is done (and stored), the late answer is dropped.
      if (res.headersSent || outcome === abandoned) return;
      res.set(outcome.headers ?? {}).status(outcome.status);
      if (outcome.rawBody !== undefined) res.type("application/json").send(outcome.rawBody);
      else if (!isSerialized(outcome.body)) res.json(outcome.body);
      // The validator checks what `res.json` is given: the text's value, where answers are checked.
      else if (options.validatesResponses) res.json(JSON.parse(serializedText(outcome.body) as string));
      // Its bytes as `send` would encode its text, with the charset `send` adds to a string's type.
      else res.set("content-type", "application/json; charset=utf-8").send(serializedBytes(outcome.body));
    } catch (error) {
      next(error);
    }
  };
}

/** Every operation bound: its handler, or a stub answering 501 where there is none. */
export function bindAll<Transaction>(
  handlers: Partial<Handlers>,
  options: BindOptions<Transaction>,
): Record<OperationId, RequestHandler> {
  const bound = {} as Record<OperationId, RequestHandler>;
  for (const id of operationIds) {
    const handler =
      (handlers[id] as Handler<typeof id> | undefined) ??
      (async () => {
        throw new NotImplementedError(id);
      });
    bound[id] = bindOperation(id, handler, options);
  }
  return bound;
}
