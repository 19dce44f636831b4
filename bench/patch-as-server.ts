/**
 * A PATCH with an Idempotency-Key as the server runs it (D68): the server's own step at once (one statement that
 * claims the key, patches and stores the answer: handlers/subscribers.ts `patchSubscriberAtOnce`), and for a subscriber
 * that does not exist a session of the skeleton's, through the skeleton's own `runIdempotently`. For the benchmarks
 * that run the server's database work without its HTTP pipeline (PostgreSQL alone, minimal Express, bench:patches).
 */
import { type Outcome, runIdempotently } from "@novu-query/express";
import type { DatabaseIdempotencyStore } from "../server/database-idempotency.js";
import { patchSubscriberAtOnce } from "../server/handlers/subscribers.js";
import type { Store } from "../server/store/store.js";
import type { SubscriberChanges } from "../server/store/subscribers.js";

export function patchAsServer(
  idempotency: DatabaseIdempotencyStore,
  store: Store,
  request: { environmentId: string; subscriberId: string; body: SubscriberChanges; key: string; path?: string },
  /** false: every PATCH in a session (BEGIN, the claim, the UPDATE, the record, COMMIT), as before D68. */
  atOnce = true,
): Promise<Outcome> {
  const { environmentId, subscriberId, body, key } = request;
  const path = request.path ?? `/v2/subscribers/${encodeURIComponent(subscriberId)}`;
  return runIdempotently(
    idempotency,
    { scope: environmentId, key, method: "PATCH", path, body, ttlSeconds: 86_400 },
    async (tx) => ({ status: 200, body: await tx.subscribers.patch(environmentId, subscriberId, body) }),
    (error) => ({ statusCode: error.status, message: error.message }) as never,
    atOnce
      ? async (fingerprint) => {
          const result = await patchSubscriberAtOnce(
            { path: { subscriberId }, body } as never,
            { auth: { environmentId }, store } as never,
            { key, fingerprint, ttlSeconds: 86_400 },
          );
          return result && "ran" in result
            ? { ...result, ran: { status: result.ran.status, body: result.ran.body } }
            : result;
        }
      : undefined,
  );
}
