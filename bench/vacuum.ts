/**
 * The benchmark's tables without dead rows: what a run deletes (the writes section's rows) is vacuumed before anything
 * is measured, so that every run reads the tables as `bench:data` left them. A VACUUM removes only rows no snapshot
 * can still see: an autovacuum worker's ANALYZE (20,000 new notifications start one) or any other transaction older
 * than the delete keeps them, and the VACUUM silently leaves them dead. So it waits for those first.
 */
import { sql } from "kysely";
import type { Store } from "../server/store/store.js";

/** The tables a run deletes rows from (bench/ingest.ts). */
const written = ["subscribers", "notifications", "subscriber_update_order"] as const;

/** Waits (up to `timeoutMs`) until no other session of this database holds a snapshot taken before now. */
async function waitForOlderSnapshots(db: Store["db"], timeoutMs: number): Promise<number> {
  // The xid this statement takes is newer than every committed delete: a snapshot from before it may see them. As a
  // 32-bit xid, which is what pg_stat_activity shows (its epoch dropped).
  const { rows } = await sql<{ xid: string }>`
    SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text AS xid`.execute(db);
  const now = (rows[0] as { xid: string }).xid;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows: older } = await sql<{ sessions: number }>`
      SELECT count(*)::int AS sessions FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL
        AND age(backend_xmin) >= age(${now}::xid)`.execute(db);
    const sessions = (older[0] as { sessions: number }).sessions;
    if (sessions === 0 || Date.now() > deadline) return sessions;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * VACUUMs the tables a run writes to, once no older snapshot holds their dead rows; returns the dead rows left (0
 * unless a session held a snapshot past `timeoutMs`, which `warn` reports).
 */
export async function vacuumWrittenTables(
  db: Store["db"],
  warn: (message: string) => void,
  timeoutMs = 60_000,
): Promise<number> {
  const holding = await waitForOlderSnapshots(db, timeoutMs);
  await sql`VACUUM ${sql.join(written.map((table) => sql.table(table)))}`.execute(db);
  const { rows } = await sql<{ dead: string }>`
    SELECT coalesce(sum(n_dead_tup), 0)::text AS dead FROM pg_stat_user_tables
    WHERE relname IN (${sql.join([...written])})`.execute(db);
  const dead = Number((rows[0] as { dead: string }).dead);
  if (dead > 0) {
    warn(
      `VACUUM left ${dead.toLocaleString("en")} dead rows in ${written.join(", ")}${holding > 0 ? ` (${holding} sessions held an older snapshot for ${timeoutMs / 1000} s)` : ""}: the next reads walk past them`,
    );
  }
  return dead;
}
