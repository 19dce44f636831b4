/**
 * Idempotency keys as Novu's interceptor reads them: a retry must repeat the first request's method, path and body
 * (key order in the body does not matter); anything else under the same key is refused with 422.
 */
import { canonicalJson } from "./canonical-json.js";

/** What a retry must repeat: the text that identifies a request under its idempotency key (hash it to store it). */
export function idempotencyFingerprint(request: { method: string; path: string; body: unknown }): string {
  return `${request.method.toUpperCase()} ${request.path}\n${canonicalJson(request.body)}`;
}

/** The 422 entry for a key reused with another request. */
export const reusedKeyField = (key: string) => ({
  "headers.idempotency-key": { messages: ["was already used with a different method, path or body"], value: key },
});
