import { createHash } from "node:crypto";
import type { RequestHandler } from "express";
import { ApiError, type ErrorBody } from "./errors.js";
import { idempotencyDocsLink, messages } from "./messages.js";
import type { Store } from "./store/store.js";

/**
 * Echoes the `idempotency-key` of a PATCH on its answer, whatever it turns out to be (success, replay, validation
 * error, conflict), as Novu's idempotency interceptor does; a key over 255 characters is refused without it.
 * Mounted after authentication and body parsing, which Novu runs before its interceptor too.
 */
export const echoIdempotencyKey: RequestHandler = (req, res, next) => {
  const key = req.header("idempotency-key");
  if (req.method === "PATCH" && key && key.length <= 255) res.setHeader("Idempotency-Key", key);
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
  environmentId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
  ttlSeconds: number;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function fingerprint(request: Pick<IdempotentRequest, "method" | "path" | "body">): string {
  return createHash("sha256")
    .update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`)
    .digest("hex");
}

/**
 * Runs `work` at most once per (environment, key): in one transaction that holds the key's lock, does the work
 * and stores its answer, so a change is never applied without its record or the reverse.
 * Errors the work itself reports (a 404) are stored and replayed too; anything else rolls back and is not stored.
 */
export async function runIdempotently(
  store: Store,
  request: IdempotentRequest,
  work: (tx: Store) => Promise<Outcome>,
  renderError: (error: ApiError) => ErrorBody,
): Promise<Outcome> {
  const print = fingerprint(request);
  return store.transaction(async (tx) => {
    if (!(await tx.idempotency.tryLock(request.environmentId, request.key))) {
      throw new ApiError(409, messages.idempotencyInFlight(request.key), {
        "Retry-After": "1",
        Link: idempotencyDocsLink,
      });
    }
    const stored = await tx.idempotency.find(request.environmentId, request.key);
    if (stored) {
      if (stored.fingerprint !== print) {
        const field = { messages: ["was already used with a different method, path or body"], value: request.key };
        throw ApiError.validation({ "headers.idempotency-key": field }, messages.idempotencyKeyReused(request.key), {
          Link: idempotencyDocsLink,
        });
      }
      return {
        status: stored.statusCode,
        body: undefined,
        rawBody: stored.body,
        headers: { "Idempotency-Replay": "true" },
      };
    }
    let outcome: Outcome;
    try {
      outcome = await work(tx);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      outcome = { status: error.status, body: renderError(error) };
    }
    await tx.idempotency.save(
      request.environmentId,
      request.key,
      { fingerprint: print, statusCode: outcome.status, body: JSON.stringify(outcome.body) },
      request.ttlSeconds,
    );
    return outcome;
  });
}
