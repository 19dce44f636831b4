import { readdirSync, readFileSync } from "node:fs";
import { type Kysely, sql } from "kysely";
import { hasCitus } from "./citus-shards.js";
import type { Database } from "./schema.js";
import { sqlStatements } from "./sql-statements.js";

const migrationsDir = new URL("./migrations/", import.meta.url);
/**
 * The history of databases made before 0.3.0, when the schema was five files: such a database (it has recorded
 * `001_initial.sql`) runs the ones it lacks and then counts as having run `001_schema.sql`, which makes the same schema
 * in one file (test/server/migrations.test.ts compares the two).
 */
const before03Dir = new URL("./migrations/before-0.3/", import.meta.url);
const foldedInto = "001_schema.sql";
/**
 * On a Citus coordinator (a database with the citus extension), the tables are spread over the workers once, after the
 * migrations (citus/distribute.sql, D41); recorded as this name. Plain PostgreSQL and PGlite never run it.
 */
const citusDir = new URL("./citus/", import.meta.url);
const distribution = "citus/distribute.sql";

function sqlFiles(dir: URL): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
}
// Any fixed number: server processes starting together on one PostgreSQL migrate one at a time.
const migrationLock = 724_511_001;

/**
 * Turns the session's statement timeout off and takes the migration lock. Migrations may build indexes over millions
 * of rows: no statement timeout for them. The SET itself runs under the pool's timeout, which a busy machine can keep
 * it past when that is tiny (1 ms in a test, on a loaded Citus coordinator): a SET cancelled by it is sent again. A
 * timeout that fires just as the SET ends can also cancel the statement after it, the lock's (on a loaded Citus
 * coordinator, about once in 28,000; it failed CI once): the lock, which a cancelled pg_advisory_lock may have taken, is
 * then let go whole and taken again.
 */
async function lockWithoutTimeout(conn: Kysely<Database>): Promise<void> {
  const cancelled = (error: unknown) => (error as { code?: string }).code === "57014";
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`SET statement_timeout = 0`.execute(conn);
    } catch (error) {
      if (!cancelled(error) || attempt === 5) throw error;
      continue;
    }
    try {
      await sql`SELECT pg_advisory_lock(${migrationLock})`.execute(conn);
      return;
    } catch (error) {
      if (!cancelled(error)) throw error;
      await sql`SELECT pg_advisory_unlock_all()`.execute(conn);
      if (attempt === 5) throw error;
    }
  }
}

/**
 * Applies the SQL files in migrations/ that have not run yet, in name order, each in its own transaction; then, on a
 * Citus coordinator, distributes the tables once.
 */
export async function migrate(db: Kysely<Database>): Promise<string[]> {
  const files = sqlFiles(migrationsDir);
  return db.connection().execute(async (conn) => {
    await lockWithoutTimeout(conn);
    try {
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
        conn,
      );
      const done = new Set(
        (await conn.selectFrom("schema_migrations").select("name").execute()).map((row) => row.name),
      );
      const applied: string[] = [];
      const apply = async (name: string, dir: URL, record: string[] = [name]) => {
        const text = readFileSync(new URL(name, dir), "utf8");
        await conn.transaction().execute(async (trx) => {
          for (const statement of sqlStatements(text)) await sql.raw(statement).execute(trx);
          for (const recorded of record) await trx.insertInto("schema_migrations").values({ name: recorded }).execute();
        });
        applied.push(name);
        for (const recorded of record) done.add(recorded);
      };
      if (done.has("001_initial.sql") && !done.has(foldedInto)) {
        const history = sqlFiles(before03Dir).filter((file) => !done.has(file));
        for (const [index, name] of history.entries()) {
          await apply(name, before03Dir, index === history.length - 1 ? [name, foldedInto] : [name]);
        }
        if (!done.has(foldedInto)) {
          await conn.insertInto("schema_migrations").values({ name: foldedInto }).execute();
          done.add(foldedInto);
        }
      }
      for (const name of files.filter((file) => !done.has(file))) await apply(name, migrationsDir);
      if (!done.has(distribution) && (await hasCitus(conn))) {
        await apply("distribute.sql", citusDir, [distribution]);
      }
      return applied;
    } finally {
      await sql`SELECT pg_advisory_unlock(${migrationLock})`.execute(conn);
      await sql`RESET statement_timeout`.execute(conn);
    }
  });
}
