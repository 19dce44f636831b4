/**
 * Terms of one to three characters (migration 004): the kept count of live subscribers per gram of each searched
 * column stays equal to a recount (made here in JavaScript from the stored lowercase copies) through inserts, PATCHes,
 * soft and hard deletes and bulk updates; a PATCH of `data` alone writes no count; a search with one short term
 * answers `totalCount` and `totalCountCapped` as a plain ILIKE count does, on both sides of the cap; and the store does
 * read the kept count for a lone short term, and only then (a falsified count shows through). The function that finds a
 * value's grams finds each distinct gram once, as the JavaScript here does.
 */
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const cap = 60;
const columns = ["email", "phone", "name"] as const;
type Column = (typeof columns)[number];

// Short values over a small alphabet, so that grams repeat across rows and many terms pass the cap.
const syllables = ["an", "Bo", "ka", "LI", "ne", "ro", "Sa", "tu", "é", "1", "42", ".", "_", "%", " "];
const text = (min: number, max: number) =>
  fc.array(fc.constantFrom(...syllables), { minLength: min, maxLength: max }).map((parts) => parts.join(""));

/** Every distinct gram of one to three characters of a value, by code point, as PostgreSQL's substr counts them. */
function shortGrams(value: string): Set<string> {
  const chars = [...value];
  const grams = new Set<string>();
  for (let length = 1; length <= 3; length++) {
    for (let at = 0; at + length <= chars.length; at++) grams.add(chars.slice(at, at + length).join(""));
  }
  return grams;
}

const byKey = (a: { searched: string; gram: string }, b: { searched: string; gram: string }) =>
  a.searched.localeCompare(b.searched) || (a.gram < b.gram ? -1 : a.gram > b.gram ? 1 : 0);

describe.each(drivers)("kept counts of short substring terms (%s)", (driver) => {
  let server: TestServer;
  let store: Store;
  let environmentId: string;
  let organizationId: string;

  const kept = async () =>
    (
      await sql<{ searched: string; gram: string; live: string }>`
        SELECT searched, gram, sum(live) AS live FROM subscriber_search_gram_counts
        WHERE environment_id = ${environmentId} GROUP BY searched, gram HAVING sum(live) <> 0`.execute(server.store.db)
    ).rows
      .map((row) => ({ searched: row.searched, gram: row.gram, live: Number(row.live) }))
      .sort(byKey);
  const recounted = async () => {
    const rows = await server.store.db
      .selectFrom("subscribers")
      .select(["email_search", "phone_search", "name_search"])
      .where("environment_id", "=", environmentId)
      .where("deleted", "=", false)
      .execute();
    const counts = new Map<string, { searched: string; gram: string; live: number }>();
    for (const row of rows) {
      for (const column of columns) {
        const value = row[`${column}_search`];
        if (value === null) continue;
        for (const gram of shortGrams(value)) {
          const key = JSON.stringify([column, gram]);
          const entry = counts.get(key) ?? { searched: column, gram, live: 0 };
          entry.live++;
          counts.set(key, entry);
        }
      }
    }
    return [...counts.values()].sort(byKey);
  };
  const plainCount = async (column: Column, term: string) => {
    const target =
      column === "name" ? sql`coalesce(first_name, '') || ' ' || coalesce(last_name, '')` : sql.ref(column);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM subscribers
      WHERE environment_id = ${environmentId} AND NOT deleted AND ${target} ILIKE ${likeContains(term)}`.execute(
      server.store.db,
    );
    return Number(rows[0]?.n);
  };
  const bothCount = async (name: string, email: string) => {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM subscribers WHERE environment_id = ${environmentId} AND NOT deleted
        AND name_search LIKE ${likeContains(name)} AND email_search LIKE ${likeContains(email)}`.execute(
      server.store.db,
    );
    return Number(rows[0]?.n);
  };
  const search = (filters: Partial<Record<Column | "subscriberId", string>>) =>
    store.subscribers.search(environmentId, firstPageQuery(filters));

  beforeAll(async () => {
    server = await startTestServer({ driver });
    environmentId = server.production.environmentId;
    organizationId = await organizationOf(server.store.db, environmentId);
    const values = fc.sample(fc.tuple(text(1, 4), text(0, 3), text(0, 3), text(0, 3), fc.nat()), {
      ...fuzzParameters(300, undefined, 300),
      seed: 17,
    });
    // One statement, as a bulk load writes them: the insert trigger sees all the rows at once.
    await server.store.db
      .insertInto("subscribers")
      .values(
        values.map(([local, domain, first, last, n], i) => ({
          id: `c0ffee${i.toString(16).padStart(18, "0")}`,
          environment_id: environmentId,
          organization_id: organizationId,
          subscriber_id: `gram-${i}`,
          email: n % 6 === 0 ? null : `${local}@${domain}`,
          phone: n % 4 === 0 ? null : `+${n % 1000}`,
          first_name: n % 5 === 0 ? null : first,
          last_name: last,
          channels: "[]",
          topics: [],
          created_at: new Date(),
          updated_at: new Date(),
        })),
      )
      .execute();
    store = new Store(server.store.db, { totalCountCap: cap });
  }, 120_000);
  afterAll(() => server?.close());

  it("keeps the count of each gram equal to a recount through inserts, PATCHes and deletes", async () => {
    expect(await kept()).toEqual(await recounted());
    const ids = await everyNthSubscriber(server.store.db, environmentId, 3);
    const steps = fc.sample(
      fc.tuple(
        fc.nat(ids.length - 1),
        fc.constantFrom<"email" | "name" | "phone" | "data" | RowChange>(
          "email",
          "name",
          "phone",
          "data",
          ...rowChanges,
        ),
        text(0, 3),
        fc.nat(),
      ),
      fuzzParameters(120, 8, 120),
    );
    for (const [at, step, value, n] of steps) {
      const row = ids[at] as { id: string; subscriber_id: string };
      const subscribers = store.subscribers;
      if (step === "email") await subscribers.patch(environmentId, row.subscriber_id, { email: `${value}@x.io` });
      else if (step === "name") {
        await subscribers.patch(
          environmentId,
          row.subscriber_id,
          n % 3 === 0 ? { lastName: null } : { firstName: value },
        );
      } else if (step === "phone") {
        await subscribers.patch(environmentId, row.subscriber_id, { phone: n % 4 === 0 ? null : `+1${n % 999}` });
      } else if (step === "data") await subscribers.patch(environmentId, row.subscriber_id, { data: { n } });
      else await changeRow(server.store.db, row.id, step);
    }
    expect(await kept()).toEqual(await recounted());
    // Many rows in one statement, some changing and some not.
    await server.store.db
      .updateTable("subscribers")
      .set({ last_name: sql`upper(last_name)`, email: sql`replace(email, 'an', 'AN')` })
      .where("environment_id", "=", environmentId)
      .execute();
    expect(await kept()).toEqual(await recounted());
    if (driver === "pglite") {
      // One connection, one slot (migration 007): the counts are one row per gram, as before.
      const { rows } = await sql<{ slots: number }>`
        SELECT count(DISTINCT slot)::int AS slots FROM subscriber_search_gram_counts`.execute(server.store.db);
      expect(rows[0]?.slots).toBe(1);
    }
  });

  it("finds each distinct gram of one to three characters once (migration 009), and none of a null", async () => {
    const values = [
      ...fc.sample(text(0, 6), { numRuns: 200, seed: 9 }),
      ...["aaaa", "ababab", "😀😀x😀", "é日本é日本", "a", ""],
    ];
    const { rows } = await sql<{ at: number; gram: string }>`
      SELECT v.at::int AS at, g AS gram FROM unnest(${values}::text[]) WITH ORDINALITY AS v(value, at),
        substring_short_grams(v.value) AS g`.execute(server.store.db);
    const found = values.map(() => [] as string[]);
    for (const row of rows) found[row.at - 1]?.push(row.gram);
    // Compared as lists: a gram found twice for one value fails.
    expect(found.map((grams) => grams.sort())).toEqual(values.map((value) => [...shortGrams(value)].sort()));
    const none = await sql<{ n: number }>`SELECT count(*)::int AS n FROM substring_short_grams(NULL)`.execute(
      server.store.db,
    );
    expect(none.rows[0]?.n).toBe(0);
    if (onCitus) {
      // The count triggers run on the workers' shards: each worker has the function as the coordinator has it.
      const { rows: bodies } = await sql<{ result: string }>`SELECT result FROM run_command_on_workers(
        $$SELECT prosrc || proisstrict FROM pg_proc WHERE proname = 'substring_short_grams'$$)`.execute(
        server.store.db,
      );
      const { rows: own } = await sql<{ body: string }>`
        SELECT prosrc || proisstrict AS body FROM pg_proc WHERE proname = 'substring_short_grams'`.execute(
        server.store.db,
      );
      expect(bodies.map((row) => row.result)).toEqual(bodies.map(() => own[0]?.body));
    }
  });

  it("writes no count for a PATCH that changes no searched column", async () => {
    const versions = async () =>
      (
        await sql<{ gram: string; version: string }>`
          SELECT searched || ' ' || gram AS gram, xmin::text AS version FROM subscriber_search_gram_counts
          WHERE environment_id = ${environmentId} ORDER BY 1`.execute(server.store.db)
      ).rows;
    const before = await versions();
    await store.subscribers.patch(environmentId, "gram-1", { data: { untouched: true }, locale: "fr_FR" });
    expect(await versions()).toEqual(before);
    // A changed name does write: the same check would see that.
    await store.subscribers.patch(environmentId, "gram-1", { firstName: "Zyzzyva" });
    expect(await versions()).not.toEqual(before);
  });

  it("answers totalCount and totalCountCapped for a lone short term as a plain ILIKE count does", async () => {
    const counts = await recounted();
    const grams = [...new Set(counts.map((entry) => entry.gram))];
    const common = [...new Set(counts.filter((entry) => entry.live > cap).map((entry) => entry.gram))];
    const term = fc.oneof(
      fc.constantFrom(...grams),
      fc.constantFrom(...common),
      fc.constantFrom(...grams).map((gram) => gram.toUpperCase()),
      text(1, 2).filter((value) => [...value].length <= 3),
    );
    const checks = new CappedCountChecks(cap);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...columns), term, async (column, value) =>
        checks.expect(await search({ [column]: value }), await plainCount(column, value)),
      ),
      fuzzParameters(200, 4, 200),
    );
    checks.expectBothSides(20);
  });

  it("reads the kept count for a lone term of up to three characters, and the rows otherwise", async () => {
    // A gram of the names that some, but fewer than the cap, hold.
    const { gram } = (await recounted()).find(
      (entry) => entry.searched === "name" && [...entry.gram].length === 3 && entry.live < cap / 2,
    ) ?? { gram: "" };
    const honest = await search({ name: gram });
    expect(honest.totalCount).toBeGreaterThan(0);
    // A row of a slot no connection writes (slots are 0..63), added and taken away again.
    const falsify = (by: number) =>
      by > 0
        ? sql`INSERT INTO subscriber_search_gram_counts (environment_id, searched, gram, slot, live)
            VALUES (${environmentId}, 'name', ${gram}, -1, ${by})`.execute(server.store.db)
        : sql`DELETE FROM subscriber_search_gram_counts
            WHERE environment_id = ${environmentId} AND searched = 'name' AND gram = ${gram} AND slot = -1`.execute(
            server.store.db,
          );
    await falsify(7);
    try {
      // A falsified count shows through: proof that the store consulted it, since the rows alone say otherwise.
      expect((await search({ name: gram.toUpperCase() })).totalCount).toBe(honest.totalCount + 7);
      // With a second filter the kept count says nothing of the intersection: the rows are counted.
      const narrowed = await search({ name: gram, email: "@" });
      expect(narrowed.totalCount).toBe(await bothCount(gram, "@"));
      expect(narrowed.totalCount).toBeLessThan(honest.totalCount + 7);
    } finally {
      await falsify(-7);
    }
    expect(await kept()).toEqual(await recounted());
  });
});
