/**
 * The idempotency key's lock and its stored answer in one round trip (migration 011, `claim_idempotency_key`;
 * server/store/idempotency-records.ts). One statement could not do it: it reads with the snapshot it took when it
 * began, before its lock, and an answer committed in between by the key's previous holder would be missed (the PATCH
 * applied twice). The function reads with a snapshot taken after its lock; the second test makes that window last
 * half a second and commits the answer inside it. Declared STABLE instead of VOLATILE, the function would read with
 * its caller's snapshot, and that test fails (tried: the claim read `fingerprint: null`).
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores } from "../support/databases.js";
import { gate } from "../support/gate.js";

const environmentId = "66e2d7c029ffca152fe17b8b";
const answer = { fingerprint: "f".repeat(64), statusCode: 200, body: '{"data":{"_id":"x"}}' };

async function storeWithEnvironment(stores: ReturnType<typeof emptyStores>): Promise<Store> {
  const store = await stores.fresh();
  await store.access.ensureEnvironment("Production", { environmentId, organizationId: "66e2d7c0c55e988285af6ccf" });
  return store;
}

describe.each(drivers)("claiming an idempotency key (%s)", (driver) => {
  const stores = emptyStores(driver);
  afterAll(() => stores.closeAll());

  it("takes a free key with no answer, and returns the answer stored for it once committed", async () => {
    const store = await storeWithEnvironment(stores);
    await store.transaction(async (tx) => {
      expect(await tx.idempotency.claim(environmentId, "k1")).toEqual({ locked: true, stored: undefined });
      await tx.idempotency.save(environmentId, "k1", answer, 60);
    });
    const claimed = await store.transaction((tx) => tx.idempotency.claim(environmentId, "k1"));
    expect(claimed).toEqual({ locked: true, stored: answer });
    // An expired answer is no answer.
    await store.transaction((tx) => tx.idempotency.save(environmentId, "k2", answer, 0));
    expect(await store.transaction((tx) => tx.idempotency.claim(environmentId, "k2"))).toEqual({
      locked: true,
      stored: undefined,
    });
  });

  it.runIf(driver === "postgres")(
    "reports a key another transaction holds, and reads an answer committed after its statement began",
    async () => {
      const store = await storeWithEnvironment(stores);
      const { opened: committing, open: commit } = gate();
      const { opened: held, open: claimedAndSaved } = gate();
      const first = store.transaction(async (tx) => {
        expect((await tx.idempotency.claim(environmentId, "k3")).locked).toBe(true);
        await tx.idempotency.save(environmentId, "k3", answer, 60);
        claimedAndSaved();
        await committing;
      });
      await held;
      // Held: the second is told so, and reads nothing.
      expect(await store.transaction((tx) => tx.idempotency.claim(environmentId, "k3"))).toEqual({
        locked: false,
        stored: undefined,
      });
      // A statement that begins while the first holds the key, and claims it half a second later (the key's text
      // depends on the sleep, so the claim runs after it), after the first has committed its answer and let the key
      // go: the claim's read must see that answer.
      const second = store.transaction(async (tx) => {
        const { rows } = await sql<{ locked: boolean; fingerprint: string | null }>`
          SELECT c.locked, c.fingerprint
          FROM (SELECT '' AS nothing FROM pg_sleep(0.5)) AS waited
          CROSS JOIN LATERAL claim_idempotency_key(${environmentId}, 'k3' || waited.nothing) AS c`.execute(tx.db);
        return rows[0];
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      commit();
      await first;
      expect(await second).toEqual({ locked: true, fingerprint: answer.fingerprint });
    },
  );
});
