/**
 * Two connections that change subscribers' names and e-mail domains at once do not wait for each other (migration 007,
 * #45): each writes the kept gram and domain counts to rows of its own slot. Before, both updated the one row of each
 * shared gram ("a", "an", " ") and domain, and the second PATCH waited until the first committed; here it runs under
 * `lock_timeout`, so a wait fails the test with PostgreSQL's "canceling statement due to lock timeout" instead of
 * slowing it. Plain PostgreSQL only: PGlite has one connection, and on Citus the counts are written by the workers'
 * backends, whose slots a client cannot choose.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/store/schema.js";
import { type OpenedStore, openStore, type Store } from "../../server/store/store.js";
import { drivers, onCitus } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

const onPlainPostgres = drivers.includes("postgres") && !onCitus;

describe.skipIf(!onPlainPostgres)("kept counts under concurrent name and e-mail PATCHes (postgres)", () => {
  let server: TestServer;
  const opened: OpenedStore[] = [];

  /** A store on a connection of its own (a pool of one), and that connection's slot. */
  async function connection(): Promise<{ store: Store; db: Kysely<Database>; slot: number }> {
    const one = await openStore({ databaseUrl: server.databaseUrl, totalCountCap: 50_000, poolSize: 1 });
    opened.push(one);
    const { db } = one.store;
    const { rows } = await sql<{ slot: number }>`SELECT kept_count_slot() AS slot`.execute(db);
    return { store: one.store, db, slot: Number(rows[0]?.slot) };
  }

  beforeAll(async () => {
    server = await startTestServer({ driver: "postgres" });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(opened.map((one) => one.close()));
    await server?.close();
  });

  it("lets a second connection PATCH a name and an e-mail sharing every gram and the domain while the first has not committed", async () => {
    const environmentId = server.production.environmentId;
    const [one, two] = (
      await server.store.db
        .selectFrom("subscribers")
        .select("subscriber_id")
        .where("environment_id", "=", environmentId)
        .where("deleted", "=", false)
        .orderBy("id")
        .limit(2)
        .execute()
    ).map((row) => row.subscriber_id) as [string, string];
    const first = await connection();
    let second = await connection();
    // Two connections share a slot when their process ids meet modulo 64; take another until they do not.
    for (let tries = 0; second.slot === first.slot && tries < 20; tries++) second = await connection();
    expect(second.slot, "21 connections, all writing the first one's slot").not.toBe(first.slot);

    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const patched = new Promise<void>((resolve) => {
      started = resolve;
    });
    // The first PATCH changes a name and an e-mail's domain, and holds its transaction open.
    const firstDone = first.store.transaction(async (tx) => {
      expect(
        await tx.subscribers.patch(environmentId, one, { firstName: "Anna Banana", email: "anna@shared.example" }),
      ).toBeDefined();
      started();
      await held;
    });
    await patched;
    try {
      await sql`SET lock_timeout = '2s'`.execute(second.db);
      // The same grams and e-mail domains, and more: before migration 007 this waited for the first to commit.
      const answer = await second.store.subscribers.patch(environmentId, two, {
        firstName: "Annabel Anna",
        email: "annabel@shared.example",
      });
      expect(answer?.firstName).toBe("Annabel Anna");
    } finally {
      release();
      await firstDone;
    }
    const { rows } = await sql<{ slots: number }>`
      SELECT count(DISTINCT slot)::int AS slots FROM subscriber_search_gram_counts
      WHERE environment_id = ${environmentId} AND searched = 'name' AND gram = 'ann' AND slot IN (${first.slot}, ${second.slot})`.execute(
      server.store.db,
    );
    expect(rows[0]?.slots).toBe(2);
    const domains = await sql<{ slots: number }>`
      SELECT count(DISTINCT slot)::int AS slots FROM subscriber_email_domains
      WHERE environment_id = ${environmentId} AND domain = 'shared.example' AND slot IN (${first.slot}, ${second.slot})`.execute(
      server.store.db,
    );
    expect(domains.rows[0]?.slots).toBe(2);
  }, 60_000);
});
