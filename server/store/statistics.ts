/**
 * Table statistics after a bulk write. PostgreSQL's autovacuum analyzes a table once enough of it has changed, some
 * time later; PGlite runs no autovacuum at all, so a PGlite database that a load filled had no statistics ever, and
 * the planner took every table for a few rows: on the demo data (`npm start`) the `updatedAt` search joined its 800
 * order rows to the subscribers in a nested loop, 36 ms a request through HTTP, 9 ms once analyzed (D56).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

/** The tables a load writes, and the kept counts it recounts: what the planner reads their sizes and values from. */
export const loadedTables = [
  "organizations",
  "environments",
  "api_keys",
  "workflows",
  "subscribers",
  "subscriber_update_order",
  "notifications",
  "subscriber_counts",
  "subscriber_email_domains",
  "subscriber_search_gram_counts",
  "notification_term_counts",
] as const satisfies readonly (keyof Database)[];

/**
 * Analyzes the tables a load wrote (the notifications' monthly partitions through their parent). Exempt from
 * STATEMENT_TIMEOUT_MS, as the load is: on Citus it analyzes every shard on the workers, which took more than a
 * 300 ms timeout on a busy machine (a test server's demo load failed so in CI).
 */
export async function analyzeLoadedTables(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(trx);
    await sql`ANALYZE ${sql.join(loadedTables.map((table) => sql.table(table)))}`.execute(trx);
  });
}

/**
 * For PGlite, which has no autovacuum: a database holding subscribers whose tables were never analyzed whole (a data
 * directory that a version before D56 loaded, or a load told not to analyze) is analyzed when opened, once. One query
 * otherwise. Told by the order rows' statistics: a load analyzes a few columns of subscribers and notifications for
 * its recount (D64), never the order rows, which every subscriber has one of and D56's plan was wrong without.
 */
export async function analyzeIfNeverAnalyzed(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ needed: boolean }>`
    SELECT EXISTS (SELECT 1 FROM subscribers)
      AND NOT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema()
        AND tablename = 'subscriber_update_order')
      AS needed`.execute(db);
  if (rows[0]?.needed) await analyzeLoadedTables(db);
  return rows[0]?.needed === true;
}
