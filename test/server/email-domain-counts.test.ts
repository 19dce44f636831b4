/**
 * The kept count of live subscribers per e-mail domain (migration 003) and the e-mail search's capped count that
 * reads it: the triggers keep it equal to a recount through inserts, PATCHes, soft and hard deletes; the search's
 * `totalCount` and `totalCountCapped` equal a plain ILIKE count for random terms when large domains pass the cap; and
 * the store does read the domains (a falsified count shows through), only for an e-mail filter alone, and counts a
 * domain as the sum of all its rows (one per connection that wrote it, migration 007).
 */
import fc from "fast-check";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withCountsRecountedAfter } from "../../server/store/kept-counts.js";
import type { Database } from "../../server/store/schema.js";
import { likeContains } from "../../server/store/sql-helpers.js";
import { Store } from "../../server/store/store.js";
import { drivers, onCitus } from "../support/databases.js";
import { CappedCountChecks, firstPageQuery } from "../support/expect-subscribers.js";
import { fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";
import {
  changeRow,
  everyNthSubscriber,
  organizationOf,
  type RowChange,
  rowChanges,
} from "../support/subscriber-rows.js";

const cap = 1000;
// Two domains over the 1,000 subscribers the partial index reads, one in mixed case; a tail of small ones.
const domains = [
  ["big.example", 1300],
  ["Mail.Example.ORG", 1100],
  ["tiny.example", 40],
  ["x@weird.example", 30],
] as const;

describe.each(drivers)("e-mail domain counts (%s)", (driver) => {
  let server: TestServer;
  let store: Store;
  let environmentId: string;
  let organizationId: string;
  let addresses: string[] = [];

  const insert = (db: Kysely<Database>, prefix: string, domain: string, count: number) =>
    sql`
      INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, first_name, email, created_at,
        updated_at)
      SELECT ${prefix} || lpad(to_hex(i), 20, '0'), ${environmentId}, ${organizationId}, ${prefix} || '-' || i,
        'Dom', CASE WHEN i % 7 = 0 THEN NULL ELSE 'user' || i || '.' || ${prefix} || '@' || ${domain} END, now(), now()
      FROM generate_series(1, ${count}) AS i`.execute(db);
  // Thousands of rows with the count triggers on, as statement triggers count them. On Citus, whose row triggers
  // count one row at a time (citus/distribute.sql: a minute for these), as a bulk load writes them: triggers off, then
  // recounted (the tests below change rows with the triggers on).
  const insertAll = () =>
    server.store.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL statement_timeout = 0`.execute(tx);
      const each = async () => {
        for (const [index, [domain, count]] of domains.entries()) await insert(tx, `d${index}aa`, domain, count);
      };
      await (onCitus ? withCountsRecountedAfter(tx, each) : each());
    });

  const kept = async () =>
    (
      await sql<{ domain: string; live: string }>`
        SELECT domain, sum(live) AS live FROM subscriber_email_domains WHERE environment_id = ${environmentId}
        GROUP BY domain HAVING sum(live) <> 0 ORDER BY domain`.execute(server.store.db)
    ).rows.map((row) => [row.domain, Number(row.live)]);
  const recounted = async () =>
    (
      await sql<{ domain: string; live: string }>`
        SELECT split_part(lower(email), '@', -1) AS domain, count(*) AS live FROM subscribers
        WHERE environment_id = ${environmentId} AND NOT deleted AND email IS NOT NULL GROUP BY 1 ORDER BY 1`.execute(
        server.store.db,
      )
    ).rows.map((row) => [row.domain, Number(row.live)]);

  const search = (filters: { email: string; name?: string }) =>
    store.subscribers.search(environmentId, firstPageQuery(filters));

  beforeAll(async () => {
    server = await startTestServer({ driver });
    environmentId = server.production.environmentId;
    organizationId = await organizationOf(server.store.db, environmentId);
    await insertAll();
    store = new Store(server.store.db, { totalCountCap: cap });
    addresses = (
      await server.store.db
        .selectFrom("subscribers")
        .select("email")
        .where("environment_id", "=", environmentId)
        .where("email", "is not", null)
        .execute()
    ).map((row) => row.email as string);
  }, 120_000);
  afterAll(() => server?.close());

  it("keeps the count of each domain equal to a recount through inserts, PATCHes and deletes", async () => {
    expect(await kept()).toEqual(await recounted());
    const ids = await everyNthSubscriber(server.store.db, environmentId, 37);
    const steps = fc.sample(
      fc.tuple(
        fc.nat(ids.length - 1),
        fc.constantFrom<"email" | "data" | RowChange>("email", "data", ...rowChanges),
        fc.nat(),
      ),
      fuzzParameters(120, 5, 120),
    );
    for (const [at, step, n] of steps) {
      const row = ids[at] as { id: string; subscriber_id: string };
      if (step === "email") {
        const email = n % 5 === 0 ? null : `moved${n}@${["big.example", "NEW.example", "tiny.example"][n % 3]}`;
        await store.subscribers.patch(environmentId, row.subscriber_id, { email });
      } else if (step === "data") {
        await store.subscribers.patch(environmentId, row.subscriber_id, { data: { n } });
      } else {
        await changeRow(server.store.db, row.id, step);
      }
    }
    expect(await kept()).toEqual(await recounted());
    // Many rows in one statement, as a bulk load or a migration writes them: without the server's statement timeout,
    // as those run (every row's triggers took past it on a slow host).
    await server.store.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL statement_timeout = 0`.execute(tx);
      await tx
        .updateTable("subscribers")
        .set({ email: sql`upper(email)` })
        .where("environment_id", "=", environmentId)
        .where("email", "like", "%tiny%")
        .execute();
      await tx
        .updateTable("subscribers")
        .set({ email: sql`replace(email, 'weird', 'odd')` })
        .where("environment_id", "=", environmentId)
        .execute();
    });
    expect(await kept()).toEqual(await recounted());
  });

  it("answers totalCount and totalCountCapped as a plain ILIKE count does, large domains passing the cap", async () => {
    const plainCount = async (text: string) =>
      Number(
        (
          await sql<{ n: string }>`
            SELECT count(*) AS n FROM subscribers
            WHERE environment_id = ${environmentId} AND NOT deleted AND email ILIKE ${likeContains(text)}`.execute(
            server.store.db,
          )
        ).rows[0]?.n,
      );
    // Pieces of addresses in either case (domains, local parts, across the '@'), and terms every domain holds.
    const term = fc.oneof(
      fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()).map(([row, start, length, upper]) => {
        const text = addresses[row % addresses.length] as string;
        const from = start % text.length;
        const piece = text.slice(from, from + 1 + (length % 12));
        return upper ? piece.toUpperCase() : piece;
      }),
      fc.constantFrom("%", "_", ".", "@", "example", "EXAMPLE.ORG", "big", "e@big.example", "weird", "x@w"),
    );
    const checks = new CappedCountChecks(cap);
    await fc.assert(
      fc.asyncProperty(term, async (text) => checks.expect(await search({ email: text }), await plainCount(text))),
      fuzzParameters(150, 3, 150),
    );
    checks.expectBothSides(20);
  });

  it("reads the kept counts for an e-mail filter alone, and the rows when other filters narrow it", async () => {
    const honest = await search({ email: "tiny.example" });
    expect(honest.totalCountCapped).toBe(false);
    // A falsified count shows through: proof that the store consulted it, since the rows alone say otherwise.
    // A row of a slot no connection writes (slots are 0..63), added and taken away again.
    await sql`INSERT INTO subscriber_email_domains (environment_id, domain, slot, live)
      VALUES (${environmentId}, 'tiny.example', -1, 1000000)`.execute(server.store.db);
    try {
      expect(await search({ email: "tiny.example" })).toMatchObject({ totalCount: cap, totalCountCapped: true });
      // With a name filter too, the domain's subscribers need not match: the rows are counted.
      expect(await search({ email: "tiny.example", name: "Dom" })).toMatchObject({
        totalCount: honest.totalCount,
        totalCountCapped: false,
      });
      // A domain's count is the sum of all its rows (migration 007), a negative one too: with a row that takes the
      // million back, the domain is small again and its rows are counted.
      await sql`INSERT INTO subscriber_email_domains (environment_id, domain, slot, live)
        VALUES (${environmentId}, 'tiny.example', -2, -1000000)`.execute(server.store.db);
      expect(await search({ email: "tiny.example" })).toMatchObject({
        totalCount: honest.totalCount,
        totalCountCapped: false,
      });
    } finally {
      await sql`DELETE FROM subscriber_email_domains
        WHERE environment_id = ${environmentId} AND domain = 'tiny.example' AND slot < 0`.execute(server.store.db);
    }
    expect(await kept()).toEqual(await recounted());
  });
});
