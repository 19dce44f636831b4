/**
 * The kept counts (live subscribers per environment, per e-mail domain and per short gram of each searched column;
 * notifications per filter term) computed from the rows in one pass, for bulk loads. The statement-level triggers keep
 * them exact row by row, but in one long load each batch updates the same count rows again, and every update leaves a
 * dead version the load's own transaction keeps alive: a million subscribers made the load ten times slower and
 * slower as it went. A bulk load turns the count triggers off, writes, and counts once here, in the same transaction.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

/** The tables whose row triggers keep the counts (every user trigger on them is a count trigger). */
const countedTables = ["subscribers", "notifications"] as const;

/** Every kept count, recomputed from the rows (the same statements the migrations filled them with). */
export async function recountKeptCounts(db: Kysely<Database>): Promise<void> {
  await sql`DELETE FROM subscriber_counts`.execute(db);
  await sql`
    INSERT INTO subscriber_counts (environment_id, live)
    SELECT environment_id, count(*) FROM subscribers WHERE NOT deleted GROUP BY 1`.execute(db);
  await sql`DELETE FROM subscriber_email_domains`.execute(db);
  await sql`
    INSERT INTO subscriber_email_domains (environment_id, domain, live)
    SELECT environment_id, email_domain(email_search), count(*) FROM subscribers
    WHERE NOT deleted AND email_search IS NOT NULL GROUP BY 1, 2`.execute(db);
  await sql`DELETE FROM subscriber_search_gram_counts`.execute(db);
  await sql`
    INSERT INTO subscriber_search_gram_counts (environment_id, searched, gram, live)
    SELECT g.environment_id, g.searched, g.gram, count(*)
    FROM subscribers s, subscriber_search_grams(s.environment_id, s.email_search, s.phone_search, s.name_search) g
    WHERE NOT s.deleted GROUP BY 1, 2, 3`.execute(db);
  await sql`DELETE FROM notification_term_counts`.execute(db);
  await sql`
    INSERT INTO notification_term_counts (environment_id, term, notifications)
    SELECT environment_id, term, count(*) FROM notifications, unnest(filter_terms) AS term GROUP BY 1, 2`.execute(db);
}

/**
 * Runs a bulk write with the count triggers off, then recounts. Call it inside a transaction: the triggers are off
 * for that transaction's writes only as long as it holds the tables (ALTER TABLE locks them), and come back on, with
 * the counts exact, when it commits; if it rolls back, nothing of it stays.
 */
export async function withCountsRecountedAfter<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  for (const table of countedTables) await sql`ALTER TABLE ${sql.id(table)} DISABLE TRIGGER USER`.execute(db);
  const result = await work();
  await recountKeptCounts(db);
  for (const table of countedTables) await sql`ALTER TABLE ${sql.id(table)} ENABLE TRIGGER USER`.execute(db);
  return result;
}
