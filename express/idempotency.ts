/**
 * Idempotency as Novu's interceptor answers it (`idempotency-key` on a PATCH): the first request's answer is stored
 * and replayed with `Idempotency-Replay: true`; the same key while the first is running is 409 with `Retry-After: 1`;
 * the same key with another method, path or body is 422; both carry Novu's `Link`. Where answers are kept is the
 * app's choice: an `IdempotencyStore` (memory-idempotency.ts keeps them in this process).
 */
import { createHash } from "node:crypto";
import {
  decideIdempotently,
  idempotencyFingerprint,
  idempotencyKeyProblem,
  keepsAnswer,
  reusedKeyField,
} from "@novu-query/contract/model";
import type { RequestHandler } from "express";
import { ApiError, type ErrorBody } from "./errors.js";
import { idempotencyDocsLink, messages } from "./messages.js";
import { serializedText } from "./serialized.js";

/** An answer as it is stored for replay. */
export interface StoredAnswer {
  /** Of the method, path and body: a retry must match it. */
  fingerprint: string;
  statusCode: number;
  /** The body, serialised. */
  body: string;
}

/** One request's hold on one key, inside the store's unit of work (a database transaction, say). */
export interface IdempotencySession<Transaction> {
  /** Given to the handler's `services` hook, so that its writes share the unit with the stored answer. */
  transaction: Transaction;
  /** Takes the key for this request; false when another request holds it now (answered 409). */
  claim(): Promise<boolean>;
  /** The answer stored for the key, unless it expired. */
  find(): Promise<StoredAnswer | undefined>;
  /** Stores the answer for `ttlSeconds`. */
  save(answer: StoredAnswer, ttlSeconds: number): Promise<void>;
}

/**
 * Where idempotent answers are kept. `session` runs `work` as one unit: what it saved, and what the handler wrote
 * through the session's transaction, is kept together when `work` resolves and dropped together when it throws, so a
 * change is never applied without its stored answer or the reverse. The key is held until the unit ends.
 */
export interface IdempotencyStore<Transaction = undefined> {
  session<T>(scope: string, key: string, work: (session: IdempotencySession<Transaction>) => Promise<T>): Promise<T>;
  /**
   * Told, after it committed, of an answer an operation's `AtOnceHandler` stored outside a session (`bytes` of it), for
   * a bound the store keeps on what it holds.
   */
  saved?(scope: string, bytes: number): Promise<void>;
}

/**
 * Echoes the `idempotency-key` of a PATCH on its answer, whatever it turns out to be (success, replay, validation
 * error, conflict), as Novu's idempotency interceptor does; a key the contract refuses (empty, over 255 characters,
 * not printable ASCII: idempotencyKeyProblem) is answered 400 without it. Printable ASCII is written back as the same
 * bytes by every HTTP stack. Mounted after authentication and body parsing, which Novu runs before its interceptor.
 */
export const echoIdempotencyKey: RequestHandler = (req, res, next) => {
  const key = req.headers["idempotency-key"];
  if (req.method === "PATCH" && typeof key === "string" && !idempotencyKeyProblem(key)) {
    res.setHeader("Idempotency-Key", key);
  }
  next();
};

export interface Outcome {
  status: number;
  body: unknown;
  headers?: Record<string, string> | undefined;
  /** The body already serialised (a replayed answer), sent as it is. */
  rawBody?: string | undefined;
}

export interface IdempotentRequest {
  /** Whose keys these are (an environment, a tenant): the same key of two scopes never meets. */
  scope: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
  ttlSeconds: number;
}

export function fingerprint(request: Pick<IdempotentRequest, "method" | "path" | "body">): string {
  return createHash("sha256").update(idempotencyFingerprint(request)).digest("hex");
}

/** A step that claims the key and, when it is free with nothing stored, does the work and stores its answer. */
export type AtOnceStep = (
  fingerprint: string,
) => Promise<
  | { held: true }
  | { held: false; stored: StoredAnswer }
  | { held: false; ran: Outcome; storedBytes: number }
  | undefined
>;

/**
 * Runs `work` at most once per (scope, key), in one session of the store: claims the key, replays a stored answer,
 * or does the work and stores its answer. Errors the work itself reports (a 404) are stored and replayed too;
 * anything else ends the session without storing anything. With `atOnce` (an operation's `AtOnceHandler`), that step
 * is tried first and decides the same way; the session runs only where it answers `undefined`.
 */
export async function runIdempotently<Transaction>(
  store: IdempotencyStore<Transaction>,
  request: IdempotentRequest,
  work: (transaction: Transaction) => Promise<Outcome>,
  renderError: (error: ApiError) => ErrorBody,
  atOnce?: AtOnceStep,
): Promise<Outcome> {
  const print = fingerprint(request);
  const step = atOnce && (await atOnce(print));
  if (step) {
    if ("ran" in step) {
      await store.saved?.(request.scope, step.storedBytes);
      return step.ran;
    }
    const answer = settled(step.held, step.held ? undefined : step.stored, print, request.key);
    if (answer === "run")
      throw new Error("an at-once step answered that it held the key and neither ran nor found an answer");
    return answer;
  }
  return store.session(request.scope, request.key, async (session) => {
    const held = !(await session.claim());
    const stored = held ? undefined : await session.find();
    const answer = settled(held, stored, print, request.key);
    if (answer !== "run") return answer;
    const outcome = await outcomeOf(() => work(session.transaction), renderError);
    if (keepsAnswer(outcome.status)) {
      await session.save(
        {
          fingerprint: print,
          statusCode: outcome.status,
          body: serializedText(outcome.body) ?? JSON.stringify(outcome.body),
        },
        request.ttlSeconds,
      );
    }
    return outcome;
  });
}

/** The answer for a key held elsewhere or answered already (`decideIdempotently`), or "run" when the work is to run. */
function settled(held: boolean, stored: StoredAnswer | undefined, print: string, key: string): Outcome | "run" {
  switch (decideIdempotently(held, stored, print)) {
    case "in-flight":
      throw new ApiError(409, messages.idempotencyInFlight(key), {
        "Retry-After": "1",
        Link: idempotencyDocsLink,
      });
    case "reused":
      throw ApiError.validation(reusedKeyField(key), messages.idempotencyKeyReused(key), {
        Link: idempotencyDocsLink,
      });
    case "replay": {
      const { statusCode, body } = stored as StoredAnswer;
      return { status: statusCode, body: undefined, rawBody: body, headers: { "Idempotency-Replay": "true" } };
    }
    case "run":
      return "run";
  }
}

/** The work's outcome; an error it reports itself (its ApiError with a status the contract keeps) becomes one too. */
async function outcomeOf(work: () => Promise<Outcome>, renderError: (error: ApiError) => ErrorBody): Promise<Outcome> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError) || !keepsAnswer(error.status)) throw error;
    return { status: error.status, body: renderError(error) };
  }
}
