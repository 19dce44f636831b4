/**
 * The token bucket's two homes held equal: the skeleton's arithmetic (express/token-bucket.ts, which the memory store
 * calls) and the reference server's one SQL statement (server/store/rate-limits.ts), on each driver. Each step moves
 * the stored bucket's time back by the step's elapsed time, takes a token in SQL, and compares with the arithmetic
 * from the same bucket. The database's own clock moves a few milliseconds between statements: that much refill is
 * the tolerance (compared on the bucket before each take, which those milliseconds may tip either way at one token).
 */
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeToken } from "../../express/token-bucket.js";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores } from "../support/databases.js";
import { fuzzParameters } from "../support/fuzz-budget.js";

const slackSeconds = 0.5;

describe.each(drivers)("the token bucket in SQL and in JavaScript (%s)", (driver) => {
  const stores = emptyStores(driver);
  let store: Store;
  beforeAll(async () => {
    store = await stores.fresh();
  });
  afterAll(() => stores.closeAll());

  it("refills, caps and takes alike, step by step", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 120 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 12 }),
        async (burst, perMinute, elapsed) => {
          run += 1;
          const key = `bucket-${driver}-${run}`;
          const limits = { burst, perMinute };
          let bucket: { tokens: number; updatedAt: number } | undefined;
          for (const ms of elapsed) {
            if (bucket) {
              // Read, then written as a constant: Citus runs no STABLE function on a column in an UPDATE.
              const { rows } = await sql<{ updated_at: Date }>`SELECT updated_at FROM rate_limit_buckets
                WHERE key_hash = ${key}`.execute(store.db);
              const [row] = rows;
              if (!row) throw new Error(`no bucket for ${key}`);
              const movedBack = new Date(row.updated_at.getTime() - ms);
              await sql`UPDATE rate_limit_buckets SET updated_at = ${movedBack} WHERE key_hash = ${key}`.execute(
                store.db,
              );
            }
            const expected = takeToken(bucket, (bucket?.updatedAt ?? 0) + ms, limits);
            const taken = await store.rateLimitBuckets.take(key, burst, perMinute / 60);
            const tolerance = (perMinute / 60) * slackSeconds + 1e-9;
            // The bucket as each found it, before its take: where it held about one token, the database's few
            // milliseconds may tip the take either way, and the tokens left then differ by the token taken.
            const heldBefore = (answer: { tokens: number; allowed: boolean }) =>
              answer.tokens + (answer.allowed ? 1 : 0);
            expect(
              Math.abs(heldBefore(taken) - heldBefore(expected)),
              JSON.stringify({ limits, elapsed, taken, expected }),
            ).toBeLessThanOrEqual(tolerance);
            if (Math.abs(heldBefore(expected) - 1) > tolerance) expect(taken.allowed).toBe(expected.allowed);
            bucket = { tokens: taken.tokens, updatedAt: 0 };
          }
        },
      ),
      fuzzParameters(40),
    );
  }, 120_000);
});
