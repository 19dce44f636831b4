/**
 * A subscriber search for a common substring term (D58, server/store/subscriber-search.ts `walkBound`): counted first,
 * through the grams, and when the count shows the matches dense, its page read in the order's index within a bound,
 * which reaches a page of them in a few entries where the grams would read every match; past the bound (the matches
 * lie together elsewhere in the order, or there are no more), read through the grams after all. Which way a page is
 * read changes only the speed: every page, in every order and direction, is what ILIKE orders, and the way each took
 * is seen in the statements the store sent.
 */
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../../server/store/store.js";
import type { SubscriberSearch } from "../../server/store/subscriber-search.js";
import { drivers } from "../support/databases.js";
import { firstPageQuery } from "../support/expect-subscribers.js";
import { fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";

const orderColumns = { _id: "id", createdAt: "created_at", updatedAt: "updated_at" } as const;

/**
 * The e-mail of the subscriber at `index` of `count` in `_id` order: "zeta" held by the oldest 40% alone, "beta" by
 * the next 10% and the newest 10%, "user" by every third, "info" by every seventh.
 */
function emailAt(index: number, count: number): string {
  const share = index / count;
  const zeta = share < 0.4 ? "zeta" : share < 0.5 || share >= 0.9 ? "beta" : "alpha";
  const words = [zeta, index % 3 === 0 ? "user" : "member", index % 7 === 0 ? "info" : "x"];
  return `${words.join(".")}${index}@example.com`;
}

describe.each(drivers)("a common substring term, counted first and walked where dense (%s)", (driver) => {
  let server: TestServer;
  let store: Store;
  /** The environment's subscribers (deleted ones too) in `_id` order, as their e-mails were written. */
  let ids: string[] = [];
  const statements: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({
      driver,
      demo: { subscribers: 400 },
      onStatement: (text) => {
        statements.push(text);
      },
    });
    const environmentId = server.production.environmentId;
    ids = (
      await server.store.db
        .selectFrom("subscribers")
        .select("id")
        .where("environment_id", "=", environmentId)
        .orderBy("id")
        .execute()
    ).map((row) => row.id);
    for (const [index, id] of ids.entries()) {
      await server.store.db
        .updateTable("subscribers")
        .set({ email: emailAt(index, ids.length) })
        .where("environment_id", "=", environmentId)
        .where("id", "=", id)
        .execute();
    }
    // Statistics of the e-mails just written: a term may be dense only when its rarest gram is common enough.
    await sql`ANALYZE subscribers`.execute(server.store.db);
    // Every term with a gram counts through the grams; every one of them may be dense, so the count decides.
    store = new Store(server.store.db, {
      totalCountCap: 50_000,
      substringCommonShare: { count: Number.POSITIVE_INFINITY, page: 0 },
    });
  }, 120_000);
  afterAll(() => server?.close());

  const ilike = async (term: string, orderBy: SubscriberSearch["orderBy"], direction: "ASC" | "DESC") => {
    const order = sql.raw(`${orderColumns[orderBy]} ${direction}, id ${direction}`);
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM subscribers
      WHERE environment_id = ${server.production.environmentId} AND NOT deleted AND email ILIKE ${`%${term}%`}
      ORDER BY ${order}`.execute(server.store.db);
    return rows.map((row) => row.id);
  };

  /** Every page of the search, forward; each page after the first also read back from the next one's `previous`. */
  const walkAll = async (query: SubscriberSearch) => {
    const environmentId = server.production.environmentId;
    const seen: string[] = [];
    let after: string | undefined;
    let before: string[] = [];
    for (let pages = 0; pages < 200; pages++) {
      const page = await store.subscribers.search(environmentId, { ...query, after });
      const ids = page.data.map((subscriber) => subscriber._id);
      if (after !== undefined) {
        expect(page.previous, "a page after the first has rows before it").not.toBeNull();
        const back = await store.subscribers.search(environmentId, {
          ...query,
          after: undefined,
          before: page.previous ?? "",
        });
        expect(back.data.map((subscriber) => subscriber._id)).toEqual(before);
      }
      seen.push(...ids);
      before = ids;
      if (!page.next) return { seen, totalCount: page.totalCount };
      after = page.next;
    }
    throw new Error("more than 200 pages");
  };

  /** The page statements since `from`: those read in the order's index within a bound, and those through the grams. */
  const pageWays = (from: number) => {
    const pages = statements.slice(from).filter((text) => /order by/i.test(text));
    return {
      bounded: pages.filter((text) => /like lower/i.test(text) && !text.includes("substring_grams")).length,
      grams: pages.filter((text) => text.includes("substring_grams")).length,
    };
  };

  it("reads the page of a dense term in the order's index, and a rare term's through the grams", async () => {
    const environmentId = server.production.environmentId;
    const query = firstPageQuery({}, 5);
    let from = statements.length;
    const dense = await store.subscribers.search(environmentId, { ...query, email: "user" });
    expect(dense.data.map((subscriber) => subscriber._id)).toEqual((await ilike("user", "_id", "DESC")).slice(0, 5));
    expect(pageWays(from)).toEqual({ bounded: 1, grams: 0 });
    from = statements.length;
    // "info": one in seven, too few of the rows for a page of 5 to fill sooner from the order than from the grams.
    const rare = await store.subscribers.search(environmentId, { ...query, email: "info.", limit: 20 });
    expect(rare.data.map((subscriber) => subscriber._id)).toEqual((await ilike("info.", "_id", "DESC")).slice(0, 20));
    expect(pageWays(from)).toEqual({ bounded: 0, grams: 1 });
  });

  it("falls back to the grams when the matches lie together past the bound, and answers the same", async () => {
    const environmentId = server.production.environmentId;
    const expected = await ilike("zeta", "_id", "DESC");
    const from = statements.length;
    // Newest first, the holders of "zeta" are the oldest 40%: the walk expects to pass 6 / 0.4 = 15 rows, and its
    // bound (60) ends before them (more than 150 subscribers).
    const page = await store.subscribers.search(environmentId, firstPageQuery({ email: "zeta" }, 5));
    expect(page.data.map((subscriber) => subscriber._id)).toEqual(expected.slice(0, 5));
    expect(page.totalCount).toBe(expected.length);
    expect(pageWays(from)).toEqual({ bounded: 1, grams: 1 });
  });

  it("tells a page's neighbours through the grams when the next match lies past the bound", async () => {
    const environmentId = server.production.environmentId;
    // Pages of two: the walk expects to pass 3 / 0.2 = 15 rows and is bounded at 60, more than the way from the
    // cursor to the older "beta" holders (5) and less than the gap between the two groups (40% of the rows).
    expect(ids.length, "enough subscribers for the gap").toBeGreaterThan(150);
    const lastOlderBeta = Math.ceil(ids.length * 0.5) - 1;
    const cursor = ids[lastOlderBeta + 5] as string;
    const from = statements.length;
    const page = await store.subscribers.search(environmentId, {
      ...firstPageQuery({ email: "beta" }, 2),
      after: cursor,
    });
    const older = (await ilike("beta", "_id", "DESC")).filter((id) => id < cursor);
    expect(page.data.map((subscriber) => subscriber._id)).toEqual(older.slice(0, 2));
    expect(page.previous, "the newest 10% hold beta too").not.toBeNull();
    expect(page.next).not.toBeNull();
    // The page filled within the bound; its newer neighbour lies past it, so the walk was read through the grams.
    expect(pageWays(from)).toEqual({ bounded: 2, grams: 2 });
  });

  it("walks every page as ILIKE orders it, in every order and direction", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("user", "zeta", "beta", "info.", "ser", "member", "alpha.user", "nothing"),
        fc.constantFrom("_id", "createdAt", "updatedAt" as const),
        fc.constantFrom("ASC", "DESC" as const),
        fc.constantFrom(2, 5, 10),
        async (email, orderBy, orderDirection, limit) => {
          const expected = await ilike(email, orderBy, orderDirection);
          const { seen, totalCount } = await walkAll({ limit, orderBy, orderDirection, includeCursor: false, email });
          expect(seen).toEqual(expected);
          expect(totalCount).toBe(expected.length);
        },
      ),
      fuzzParameters(30, 3, 30),
    );
  }, 120_000);
});
