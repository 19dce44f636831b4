import { readdirSync, readFileSync } from "node:fs";
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

const migrationsDir = new URL("./migrations/", import.meta.url);
// Any fixed number: server processes starting together on one PostgreSQL migrate one at a time.
const migrationLock = 724_511_001;

/** Applies the SQL files in migrations/ that have not run yet, in name order, each in its own transaction. */
export async function migrate(db: Kysely<Database>): Promise<string[]> {
  const files = readdirSync(migrationsDir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
  return db.connection().execute(async (conn) => {
    // Migrations may build indexes over millions of rows: no statement timeout for them.
    await sql`SET statement_timeout = 0`.execute(conn);
    await sql`SELECT pg_advisory_lock(${migrationLock})`.execute(conn);
    try {
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
        conn,
      );
      const done = new Set(
        (await conn.selectFrom("schema_migrations").select("name").execute()).map((row) => row.name),
      );
      const applied: string[] = [];
      for (const name of files.filter((file) => !done.has(file))) {
        const text = readFileSync(new URL(name, migrationsDir), "utf8");
        await conn.transaction().execute(async (trx) => {
          await sql.raw(text).execute(trx);
          await trx.insertInto("schema_migrations").values({ name }).execute();
        });
        applied.push(name);
      }
      return applied;
    } finally {
      await sql`SELECT pg_advisory_unlock(${migrationLock})`.execute(conn);
      await sql`RESET statement_timeout`.execute(conn);
    }
  });
}
