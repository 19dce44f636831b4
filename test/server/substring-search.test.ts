/**
 * The substring filters' access paths (001_schema.sql and migration 004, server/store/substring-filter.ts) against a
 * plain scan: for random terms, the subscriber search (`email`, `phone`, `name`) and the notification list (`search`)
 * return exactly the rows that `ILIKE '%term%'` over the original columns returns, whichever way the store reaches
 * them: the rarest grams (or a two-character term's own 2-gram) with the gram statistics, every term as common (LIKE
 * alone), or every term as rare (grams always). A lone term of up to three characters is counted by its kept count.
 * The statistics are the database's, on Citus read from the shards.
 */
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { likeContains } from "../../server/store/sql-helpers.js";
import { Store } from "../../server/store/store.js";
import { gramIndexes, rarestGrams, SubstringFilter, termGrams } from "../../server/store/substring-filter.js";
import { drivers } from "../support/databases.js";
import { firstPageQuery } from "../support/expect-subscribers.js";
import { fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";

// Letters in both cases, characters whose case mapping is special (İ, ß, Σ), LIKE's wildcards and escape, and
// punctuation of e-mail addresses and phone numbers: short values over a small alphabet, so that terms often match.
const alphabet = [
  "a",
  "A",
  "b",
  "B",
  "e",
  "é",
  "É",
  "İ",
  "i",
  "ı",
  "ß",
  "Σ",
  "σ",
  ".",
  "@",
  "_",
  "%",
  "\\",
  "+",
  "1",
  "2",
  " ",
];
const value = fc.array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 9 }).map((chars) => chars.join(""));

const modes = [
  { name: "by the gram statistics", share: undefined },
  { name: "every term common (LIKE alone)", share: 0 },
  { name: "every term rare (grams always)", share: Number.POSITIVE_INFINITY },
] as const;

describe.each(drivers)("substring filters against a plain ILIKE scan (%s)", (driver) => {
  let server: TestServer;
  let values: { email: string | null; phone: string | null; name: string; subscriberId: string }[] = [];
  beforeAll(async () => {
    server = await startTestServer({ driver });
    const environmentId = server.production.environmentId;
    const ids = await server.store.db
      .selectFrom("subscribers")
      .select(["id", "subscriber_id"])
      .where("environment_id", "=", environmentId)
      .execute();
    const random = fc.sample(fc.tuple(value, value, value, value, fc.boolean()), { numRuns: ids.length, seed: 11 });
    for (const [i, row] of ids.entries()) {
      const [email, phone, first, last, nulls] = random[i] as [string, string, string, string, boolean];
      await server.store.db
        .updateTable("subscribers")
        .set({
          email: nulls ? null : email,
          phone: nulls ? null : phone,
          first_name: first,
          last_name: nulls ? null : last,
        })
        .where("id", "=", row.id)
        .execute();
    }
    // Statistics for the gram indexes, so that the first mode chooses by them.
    await sql`ANALYZE subscribers`.execute(server.store.db);
    values = (
      await server.store.db
        .selectFrom("subscribers")
        .select(["email", "phone", "first_name", "last_name", "subscriber_id"])
        .where("environment_id", "=", environmentId)
        .execute()
    ).map((row) => ({
      email: row.email,
      phone: row.phone,
      name: `${row.first_name ?? ""} ${row.last_name ?? ""}`,
      subscriberId: row.subscriber_id,
    }));
  }, 120_000);
  afterAll(() => server?.close());

  // Pieces of stored values with their case changed, random strings, and terms of one or two characters.
  const term = () =>
    fc.oneof(
      fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()).map(([row, start, length, upper]) => {
        const stored = values[row % values.length];
        const text = stored?.email ?? stored?.name ?? "a";
        const from = start % (text.length + 1);
        const piece = text.slice(from, from + 1 + (length % 6));
        return upper ? piece.toUpperCase() : piece.toLowerCase();
      }),
      value.filter((text) => text.length > 0),
      fc.constantFrom("%", "_", "\\", "a", "É", "ss", "İ", "Σσ", "@"),
    );

  const plain = async (column: "email" | "phone" | "name", text: string) => {
    const target =
      column === "name" ? sql`coalesce(first_name, '') || ' ' || coalesce(last_name, '')` : sql.ref(column);
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM subscribers
      WHERE environment_id = ${server.production.environmentId} AND NOT deleted AND ${target} ILIKE ${likeContains(text)}
      ORDER BY id DESC`.execute(server.store.db);
    return rows.map((row) => row.id);
  };

  it.each(modes)("subscriber search returns the rows and count of ILIKE: $name", async ({ share }) => {
    const store = new Store(server.store.db, { totalCountCap: 50_000, substringCommonShare: share });
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("email", "phone", "name" as const), term(), async (column, text) => {
        const page = await store.subscribers.search(
          server.production.environmentId,
          firstPageQuery({ [column]: text }, 100),
        );
        const expected = await plain(column, text);
        expect(page.data.map((subscriber) => subscriber._id)).toEqual(expected.slice(0, 100));
        expect(page.totalCount).toBe(expected.length);
        if (expected.length > 0) matched++;
      }),
      fuzzParameters(150, 42, 150),
    );
    // The terms are chosen to match: a comparison of empty answers would prove little.
    expect(matched).toBeGreaterThan(50);
  });

  it.each(modes)(
    "the notification list's search returns the notifications of ILIKE or the exact id: $name",
    async ({ share }) => {
      const store = new Store(server.store.db, { totalCountCap: 50_000, substringCommonShare: share });
      const environmentId = server.production.environmentId;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(term(), fc.constantFrom(...values.slice(0, 5).map((row) => row.subscriberId))),
          async (text) => {
            const page = await store.notifications.list(environmentId, {
              page: 0,
              limit: 500,
              after: new Date(0),
              before: new Date(),
              search: text,
            });
            const { rows } = await sql<{ id: string }>`
            SELECT n.id FROM notifications n
              JOIN subscribers s ON s.environment_id = n.environment_id AND s.id = n.subscriber_id
            WHERE n.environment_id = ${environmentId} AND NOT s.deleted
              AND (s.email ILIKE ${likeContains(text)} OR s.subscriber_id = ${text})
            ORDER BY n.created_at DESC, n.id DESC LIMIT 500`.execute(server.store.db);
            expect(page.data.map((notification) => notification._id)).toEqual(rows.map((row) => row.id));
          },
        ),
        fuzzParameters(60, 7, 60),
      );
    },
  );

  it("reads the gram statistics that ANALYZE wrote (on Citus, every shard's, weighted by its rows)", async () => {
    const frequencies = await new SubstringFilter(server.store.db).gramFrequencies();
    const email = frequencies.get(gramIndexes.email);
    expect(email?.size, "the e-mail gram index's most common grams").toBeGreaterThan(0);
    // The most common gram's share is the share of every environment's rows with an e-mail that hold it.
    const [gram, share] = [...(email ?? [])].sort((a, b) => b[1] - a[1])[0] as [string, number];
    const { rows } = await sql<{ share: number }>`
      SELECT avg((email_search LIKE ${likeContains(gram)})::int)::float8 AS share
      FROM subscribers WHERE email_search IS NOT NULL`.execute(server.store.db);
    expect(share, `the share of rows holding "${gram}"`).toBeCloseTo(rows[0]?.share ?? 0, 1);
  });

  it("asks the index for the rarest grams that do not overlap, and for overlapping ones only to fill up", () => {
    const grams = termGrams("Addison.T");
    expect(grams.map((gram) => gram.gram)).toEqual(["add", "ddi", "dis", "iso", "son", "on.", "n.t"]);
    const none = () => 0;
    expect(rarestGrams(grams, none, 3)).toEqual(["add", "iso", "n.t"]);
    const common = new Map([
      ["add", 0.2],
      ["iso", 0.2],
      ["n.t", 0.3],
    ]);
    expect(rarestGrams(grams, (gram) => common.get(gram) ?? 0, 3)).toEqual(["ddi", "son", "dis"]);
    // A rarer neighbour of the rarest gram loses to a gram elsewhere in the term.
    const ranked = new Map([
      ["add", 0.001],
      ["ddi", 0.002],
      ["dis", 0.003],
      ["iso", 0.01],
      ["son", 0.02],
      ["on.", 0.03],
      ["n.t", 0.04],
    ]);
    expect(rarestGrams(grams, (gram) => ranked.get(gram) ?? 0, 2)).toEqual(["add", "iso"]);
    expect(rarestGrams(grams, (gram) => ranked.get(gram) ?? 0, 4)).toEqual(["add", "iso", "n.t", "ddi"]);
    expect(termGrams("ab")).toEqual([]);
  });
});
