/**
 * Prepared statements on PostgreSQL (server/store/prepared-statements.ts): the statements marked `prepared` (lookups
 * by key) run as named statements, planned once per connection; every other statement, the filtered searches and
 * lists above all, is planned for its values each time; PREPARED_STATEMENTS=false names none.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatementNames } from "../../server/store/prepared-statements.js";
import type { Database } from "../../server/store/schema.js";
import { openStore } from "../../server/store/store.js";
import { createPostgresDatabase, drivers } from "../support/databases.js";
import { firstPageQuery } from "../support/expect-subscribers.js";

describe("statement names", () => {
  it("name marked statements only, one name per text, and none past the limit", () => {
    const names = new StatementNames(2);
    const marked = (n: number) => `SELECT ${n} WHERE x = $1 /* prepared */`;
    expect(names.nameOf("SELECT * FROM subscribers WHERE email_search LIKE $1")).toBeUndefined();
    const first = names.nameOf(marked(1));
    expect(first).toMatch(/^s[0-9a-f]{20}$/);
    expect(names.nameOf(marked(1))).toBe(first);
    expect(new StatementNames().nameOf(marked(1))).toBe(first);
    expect(names.nameOf(marked(2))).not.toBe(first);
    expect(names.nameOf(marked(3))).toBeUndefined();
    expect(names.nameOf(marked(1))).toBe(first);
  });
});

describe.runIf(drivers.includes("postgres"))("prepared statements on PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await createPostgresDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** The statements the one connection of a store's pool has prepared, by their text. */
  async function preparedTexts(db: Kysely<Database>): Promise<string[]> {
    const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db);
    return rows.map((row) => row.statement);
  }

  async function runEachKind(preparedStatements: boolean) {
    const { store, close } = await openStore({
      databaseUrl: database.url,
      poolSize: 1,
      totalCountCap: 50_000,
      preparedStatements,
    });
    const environment = await store.access.ensureEnvironment("Production");
    await store.notifications.get(environment.environmentId, "66b7e1d0c3a2b1f0e9d8c7b6");
    await store.notifications.get(environment.environmentId, "66b7e1d0c3a2b1f0e9d8c7b7");
    await store.subscribers.findBySubscriberId(environment.environmentId, "nobody");
    await store.subscribers.search(environment.environmentId, firstPageQuery({ email: "ada" }));
    await store.notifications.list(environment.environmentId, {
      limit: 10,
      page: 0,
      after: new Date(0),
      before: new Date(),
      channels: ["email"],
    });
    const texts = await preparedTexts(store.db);
    await close();
    return texts;
  }

  it("prepare each marked statement once per connection and nothing else", async () => {
    const texts = await runEachKind(true);
    expect(texts.every((text) => text.endsWith(" /* prepared */"))).toBe(true);
    expect(
      texts.filter((text) => text.includes('from "notifications"') || text.includes("from notifications")),
    ).toHaveLength(1);
    expect(texts.some((text) => /"subscriber_id" = \$2/.test(text))).toBe(true);
    expect(texts.some((text) => /LIKE/.test(text))).toBe(false);
    expect(texts).toHaveLength(2);
  });

  it("prepare nothing when turned off", async () => {
    expect(await runEachKind(false)).toEqual([]);
  });

  it("answer a prepared lookup right for each value, before and after PostgreSQL caches its plan", async () => {
    const { store, close } = await openStore({ databaseUrl: database.url, poolSize: 1, totalCountCap: 50_000 });
    const environment = await store.access.ensureEnvironment("Production");
    for (const [n, id] of ["66b7e1d0c3a2b1f0e9d8c701", "66b7e1d0c3a2b1f0e9d8c702"].entries()) {
      await sql`INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, first_name, created_at,
        updated_at) VALUES (${id}, ${environment.environmentId}, ${environment.organizationId}, ${`s${n}`}, ${`Name ${n}`}, now(),
        now())`.execute(store.db);
    }
    const names = [];
    for (let i = 0; i < 12; i++) {
      names.push(
        (await store.subscribers.findBySubscriberId(environment.environmentId, `s${i % 3}`))?.firstName ?? null,
      );
    }
    expect(names).toEqual(Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? null : `Name ${i % 3}`)));
    expect(await preparedTexts(store.db)).toHaveLength(1);
    await close();
  });
});
