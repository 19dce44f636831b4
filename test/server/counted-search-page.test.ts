/**
 * A filtered subscriber search whose page reads every match anyway (an exact subscriberId, a substring term read
 * through its grams) counts them in the page's own statement (D76, server/store/subscriber-search.ts
 * `countedPageStatement`): the matches read once, into a CTE that both the count and the page's ids come from, where a
 * page and a count side by side read them twice. Which statements a search sends is seen in the store's log; what it
 * answers is held against a plain ILIKE scan. The store against the model (store-model.test.ts) holds every declared
 * query, cursors included, to the same answers.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { likeContains } from "../../server/store/sql-helpers.js";
import { Store } from "../../server/store/store.js";
import type { SubscriberSearch } from "../../server/store/subscriber-search.js";
import { drivers } from "../support/databases.js";
import { firstPageQuery } from "../support/expect-subscribers.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** Every substring term read through its grams, or none (`SubstringFilter`'s shares, as substring-search.test.ts). */
const throughGrams = Number.POSITIVE_INFINITY;
const likeAlone = 0;

describe.each(drivers)("a filtered search counted in its page's statement (%s)", (driver) => {
  let server: TestServer;
  const statements: string[] = [];
  let environmentId: string;
  /** A name term of four characters that many subscribers hold, and the e-mail of one. */
  let nameTerm: string;
  let email: string;

  beforeAll(async () => {
    server = await startTestServer({
      driver,
      demo: { subscribers: 300, notifications: 5 },
      onStatement: (text) => {
        statements.push(text);
      },
    });
    environmentId = server.production.environmentId;
    // The four characters of names that the most live subscribers share (a term of three or fewer is counted as kept).
    const held = new Map<string, number>();
    for (const row of server.production.subscribers) {
      if (row.deleted) continue;
      const name = `${row.first_name ?? ""} ${row.last_name ?? ""}`.toLowerCase();
      const pieces = new Set([...name].flatMap((_, at) => (at + 4 <= name.length ? [name.slice(at, at + 4)] : [])));
      for (const piece of pieces) if (!piece.includes(" ")) held.set(piece, (held.get(piece) ?? 0) + 1);
    }
    nameTerm = [...held].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
    email = server.production.subscribers.find((row) => !row.deleted && row.email)?.email as string;
  }, 120_000);
  afterAll(() => server?.close());

  /** The search's answer, and the statements it sent that read subscribers (the gram statistics are read once). */
  const searched = async (share: number, query: Partial<SubscriberSearch>, limit = 5) => {
    const store = new Store(server.store.db, { totalCountCap: 50_000, substringCommonShare: share });
    // The gram statistics, read once per store, are not the search's statements.
    await store.subscribers.search(environmentId, firstPageQuery({ name: "warm-up" }, 1));
    statements.length = 0;
    const page = await store.subscribers.search(environmentId, { ...firstPageQuery({}, limit), ...query });
    return { page, sent: statements.filter((text) => /"subscribers"/.test(text)) };
  };

  /** What ILIKE finds over the original columns, newest id first. */
  const ilike = async (column: "email" | "name", term: string) => {
    const target =
      column === "name" ? sql`coalesce(first_name, '') || ' ' || coalesce(last_name, '')` : sql.ref(column);
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM subscribers
      WHERE environment_id = ${environmentId} AND NOT deleted AND ${target} ILIKE ${likeContains(term)}
      ORDER BY id DESC`.execute(server.store.db);
    return rows.map((row) => row.id);
  };

  it("reads and counts a term's matches in one statement when the grams give them", async () => {
    const expected = await ilike("name", nameTerm);
    expect(expected.length).toBeGreaterThan(5);
    const { page, sent } = await searched(throughGrams, { name: nameTerm });
    expect(sent, sent.join("\n")).toHaveLength(1);
    expect(sent[0]).toContain('with "matches" as materialized');
    expect(page.data.map((subscriber) => subscriber._id)).toEqual(expected.slice(0, 5));
    expect(page).toMatchObject({ totalCount: expected.length, totalCountCapped: false });
  });

  it("counts an exact subscriberId in its page's statement", async () => {
    const one = server.production.subscribers.find((row) => !row.deleted) as { subscriber_id: string; id: string };
    const { page, sent } = await searched(throughGrams, { subscriberId: one.subscriber_id });
    expect(sent, sent.join("\n")).toHaveLength(1);
    expect(page.data.map((subscriber) => subscriber._id)).toEqual([one.id]);
    expect(page.totalCount).toBe(1);
  });

  it("counts an e-mail term alone by its large domains first, in the same statement", async () => {
    const term = email.slice(0, 6);
    const { page, sent } = await searched(throughGrams, { email: term });
    expect(sent, sent.join("\n")).toHaveLength(1);
    expect(sent[0]).toContain("subscriber_email_domains");
    expect(page.totalCount).toBe((await ilike("email", term)).length);
  });

  it("reads the page and the count apart when the term is read in the order's index (the LIKE alone)", async () => {
    const { page, sent } = await searched(likeAlone, { name: nameTerm });
    expect(sent, sent.join("\n")).toHaveLength(2);
    expect(sent.join("\n")).not.toContain('"matches"');
    expect(page.totalCount).toBe((await ilike("name", nameTerm)).length);
  });

  it("answers 0 from an empty page with no cursor, and counts apart when the page past a cursor is empty", async () => {
    const none = await searched(throughGrams, { name: "no such name at all" });
    expect(none.sent).toHaveLength(1);
    expect(none.page).toMatchObject({ data: [], totalCount: 0, next: null, previous: null });

    const expected = await ilike("name", nameTerm);
    const last = expected.at(-1) as string;
    // Past the last match in the `_id` DESC order: no rows, yet every match still counts.
    const past = await searched(throughGrams, { name: nameTerm, after: last });
    expect(past.page.data).toEqual([]);
    expect(past.page.totalCount).toBe(expected.length);
    expect(past.sent.some((text) => text.includes('"matches"'))).toBe(true);
    expect(past.sent.some((text) => text.includes("count(*)::int"))).toBe(true);
  });

  it("walks every order both ways past a cursor with the count of every match", async () => {
    const expected = await ilike("name", nameTerm);
    for (const orderBy of ["_id", "createdAt", "updatedAt"] as const) {
      for (const orderDirection of ["ASC", "DESC"] as const) {
        const first = await searched(throughGrams, { name: nameTerm, orderBy, orderDirection }, 2);
        expect(first.page.totalCount).toBe(expected.length);
        const second = await searched(
          throughGrams,
          { name: nameTerm, orderBy, orderDirection, after: first.page.next as string },
          2,
        );
        expect(second.page.totalCount).toBe(expected.length);
        expect(second.page.previous).not.toBeNull();
        const back = await searched(
          throughGrams,
          { name: nameTerm, orderBy, orderDirection, before: second.page.previous as string },
          2,
        );
        expect(back.page.data.map((subscriber) => subscriber._id)).toEqual(
          first.page.data.map((subscriber) => subscriber._id),
        );
        expect(back.page.totalCount).toBe(expected.length);
      }
    }
  });
});
