/**
 * The kept counts (live subscribers per environment, per e-mail domain and per short gram of each searched column;
 * notifications per filter term) computed from the rows in one pass, for bulk loads. The statement-level triggers keep
 * them exact row by row, but in one long load each batch updates the same count rows again, and every update leaves a
 * dead version the load's own transaction keeps alive: a million subscribers made the load ten times slower and
 * slower as it went. A bulk load turns the count triggers off, writes, and counts once here, in the same transaction.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "./schema.js";

/**
 * The tables whose triggers keep the counts, and the subscribers' update order (migration 010): every user trigger on
 * them keeps one or the other.
 */
const countedTables = ["subscribers", "notifications"] as const;

/** The tables that hold the kept counts. */
export const keptCountTables = [
  "subscriber_counts",
  "subscriber_email_domains",
  "subscriber_search_gram_counts",
  "notification_term_counts",
] as const;

/**
 * Replaces a count table's rows with what `select` counts. The counting goes through a temporary table because
 * PostgreSQL runs `CREATE TABLE ... AS` with parallel workers and `INSERT ... SELECT` without them: the gram counts of
 * a million subscribers took 38 s instead of about 70 on two cores.
 */
async function replaceCounts(
  db: Kysely<Database>,
  table: string,
  columns: string[],
  select: RawBuilder<unknown>,
): Promise<void> {
  const list = sql.join(columns.map((column) => sql.id(column)));
  await sql`DELETE FROM ${sql.table(table)}`.execute(db);
  await sql`CREATE TEMPORARY TABLE kept_counts_recount (${list}) AS ${select}`.execute(db);
  await sql`INSERT INTO ${sql.table(table)} (${list}) SELECT ${list} FROM kept_counts_recount`.execute(db);
  await sql`DROP TABLE kept_counts_recount`.execute(db);
}

/** One kept-count table's recount: the statement that counts its rows from the data. */
export interface Recount {
  table: (typeof keptCountTables)[number];
  columns: string[];
  select: RawBuilder<unknown>;
}

/**
 * The statements that count every kept count from the rows (the same ones the migrations filled them with), the domain
 * and gram counts written to `slot`. The slot is a number in the text, not `kept_count_slot()`: that function is
 * PARALLEL RESTRICTED (it reads the backend's id), and in the statement it kept PostgreSQL from counting the grams of
 * a million subscribers with parallel workers (on the bench data: one serial aggregate of 2.9 billion estimated grams
 * instead of a partial aggregate per worker).
 */
export function keptCountRecounts(slot: number): Recount[] {
  if (!Number.isInteger(slot) || slot < 0 || slot > 32767) throw new RangeError(`not a slot: ${slot}`);
  const written = sql.lit(slot);
  return [
    {
      table: "subscriber_counts",
      columns: ["environment_id", "live"],
      select: sql`SELECT environment_id, count(*) FROM subscribers WHERE NOT deleted GROUP BY 1`,
    },
    {
      table: "subscriber_email_domains",
      columns: ["environment_id", "domain", "slot", "live"],
      select: sql`SELECT environment_id, email_domain(email_search), ${written}::smallint, count(*) FROM subscribers
        WHERE NOT deleted AND email_search IS NOT NULL GROUP BY 1, 2`,
    },
    {
      table: "subscriber_search_gram_counts",
      columns: ["environment_id", "searched", "gram", "slot", "live"],
      select: sql`SELECT g.environment_id, g.searched, g.gram, ${written}::smallint, count(*)
        FROM subscribers s, subscriber_search_grams(s.environment_id, s.email_search, s.phone_search, s.name_search) g
        WHERE NOT s.deleted GROUP BY 1, 2, 3`,
    },
    {
      table: "notification_term_counts",
      columns: ["environment_id", "term", "notifications"],
      select: sql`SELECT environment_id, term, count(*) FROM notifications, unnest(filter_terms) AS term
        GROUP BY 1, 2`,
    },
  ];
}

/**
 * Every kept count, recomputed from the rows. The domain and gram counts go to the recounting connection's slot
 * (migration 007): on PGlite, whose one connection writes one slot, they stay one row per count.
 */
export async function recountKeptCounts(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ slot: number }>`SELECT kept_count_slot() AS slot`.execute(db);
  for (const { table, columns, select } of keptCountRecounts(Number(rows[0]?.slot)))
    await replaceCounts(db, table, columns, select);
}

/**
 * Writes the order row (migration 010) of every subscriber that lacks one or whose `updated_at` moved: what the
 * triggers would have written, once for a bulk write that ran without them.
 */
export async function refillUpdateOrder(db: Kysely<Database>): Promise<void> {
  await sql`INSERT INTO subscriber_update_order AS o (environment_id, id, updated_at)
    SELECT s.environment_id, s.id, s.updated_at FROM subscribers s
    LEFT JOIN subscriber_update_order k ON k.environment_id = s.environment_id AND k.id = s.id
    WHERE k.updated_at IS DISTINCT FROM s.updated_at
    ON CONFLICT (environment_id, id) DO UPDATE SET updated_at = excluded.updated_at`.execute(db);
}

/**
 * Statistics of the columns the recounts and the foreign-key checks after them group and join by. A new database has
 * none (ANALYZE in the load's transaction counts its own rows as live), and without them PostgreSQL took a million
 * subscribers for 150,000 in 200 environments, and sorted their 113 million grams on disk (4.6 GB) to group them
 * instead of hashing 34,000 groups: the gram recount took 104-165 s instead of 35 (D64). Only these columns: the
 * whole tables took 3-4 s at 300,000 of each (every sampled notification's answer read), these 0.3-0.8 s.
 */
async function analyzeWrittenRows(db: Kysely<Database>): Promise<void> {
  await sql`ANALYZE subscribers (environment_id, id, deleted), notifications (environment_id, subscriber_id)`.execute(
    db,
  );
}

/**
 * Runs a bulk write with the count triggers off (and the update order's), then recounts and writes the order rows.
 * Call it inside a transaction: the triggers are off for that transaction's writes only as long as it holds the tables
 * (ALTER TABLE locks them), and come back on, with the counts exact, when it commits; if it rolls back, nothing of it
 * stays.
 */
export async function withCountsRecountedAfter<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  // Citus lets its tables' triggers be turned off and on only with the first setting (citus/distribute.sql), and a
  // transaction that changed its tables over parallel connections may not read a reference table after: the second
  // keeps to one connection per node. Elsewhere they are settings no one reads (PostgreSQL keeps any name with a dot
  // for extensions), so the same statements run everywhere.
  await sql`SET LOCAL citus.enable_unsafe_triggers = on`.execute(db);
  // A bulk load is exempt from STATEMENT_TIMEOUT_MS, as migrations are: it is no request.
  await sql`SET LOCAL statement_timeout = 0`.execute(db);
  await sql`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`.execute(db);
  for (const table of countedTables) await sql`ALTER TABLE ${sql.id(table)} DISABLE TRIGGER USER`.execute(db);
  const result = await work();
  await analyzeWrittenRows(db);
  await recountKeptCounts(db);
  await refillUpdateOrder(db);
  for (const table of countedTables) await sql`ALTER TABLE ${sql.id(table)} ENABLE TRIGGER USER`.execute(db);
  return result;
}
