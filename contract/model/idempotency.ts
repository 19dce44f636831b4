/**
 * Idempotency keys as Novu's interceptor reads them: a retry must repeat the first request's method, path and body
 * (key order in the body does not matter); anything else under the same key is refused with 422.
 */
import { canonicalJson } from "./canonical-json.js";
import { messages } from "./messages.js";

/** What a retry must repeat: the text that identifies a request under its idempotency key (hash it to store it). */
export function idempotencyFingerprint(request: { method: string; path: string; body: unknown }): string {
  return `${request.method.toUpperCase()} ${request.path}\n${canonicalJson(request.body)}`;
}

/** The 422 entry for a key reused with another request. */
export const reusedKeyField = (key: string) => ({
  "headers.idempotency-key": { messages: ["was already used with a different method, path or body"], value: key },
});

/**
 * What a request with an idempotency key gets, in one place for every implementation (the skeleton's
 * runIdempotently, MemoryApi): 409 while another request holds the key (`in-flight`), 422 when the key's stored
 * answer was for another method, path or body (`reused`), that answer again (`replay`), or the work done and its
 * answer stored (`run`).
 */
export type IdempotencyDecision = "in-flight" | "reused" | "replay" | "run";

export function decideIdempotently(
  heldByAnother: boolean,
  stored: { fingerprint: string } | undefined,
  fingerprint: string,
): IdempotencyDecision {
  if (heldByAnother) return "in-flight";
  if (!stored) return "run";
  return stored.fingerprint === fingerprint ? "replay" : "reused";
}

/**
 * Whether an answer is kept for the key's retries: the operation's success, and the errors its handler made (a 404
 * replays as itself); not a refused request or a conflict (Stripe's rule), which a retry may get past.
 */
export function keepsAnswer(status: number): boolean {
  return status < 300 || status === 404;
}

/** What an idempotency key may be made of: printable ASCII, which every HTTP stack sends and echoes as the same bytes. */
const printableAscii = /^[ -~]*$/;

/**
 * Why an idempotency key is refused with Novu's 400, or undefined: empty, over 255 characters, or not printable ASCII
 * (a header's bytes beyond ASCII are read one character each by Node and fetch, and would be stored and echoed
 * differently from what the client meant).
 */
export function idempotencyKeyProblem(key: string): string | undefined {
  if (key === "") return messages.idempotencyKeyEmpty;
  if (key.length > 255) return messages.idempotencyKeyTooLong(key);
  if (!printableAscii.test(key)) return messages.idempotencyKeyNotAscii;
  return undefined;
}
