/** Where the benchmarks keep their data: a PostgreSQL URL given by the user, or a database in the private cluster. */
import { execFileSync } from "node:child_process";
import { sql } from "kysely";
import pg from "pg";
import { fillAnswers } from "../server/store/answer-fill.js";
import type { Store } from "../server/store/store.js";

export const benchDatabaseName = "novu_bench";
export const defaultPgliteDir = ".data/bench-pglite";

/** The URL given, or the `novu_bench` database of the private cluster (`scripts/postgres.sh`), started if needed. */
export async function benchDatabaseUrl(given: string | undefined): Promise<string> {
  if (given) return given;
  const base = execFileSync("scripts/postgres.sh", ["start"], { encoding: "utf8" }).trim();
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [benchDatabaseName]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${benchDatabaseName}`);
  } finally {
    await client.end();
  }
  const url = new URL(base);
  url.pathname = `/${benchDatabaseName}`;
  return url.toString();
}

/**
 * Gives every notification loaded before D59 its kept answer (server/store/answer-fill.ts) and vacuums the dead rows
 * the rewrite left, so that neither the server's background rewrite nor autovacuum runs beside the measurements;
 * returns how many it rewrote.
 */
export async function fillAllAnswers(store: Store): Promise<number> {
  let filled = 0;
  for (let found = await fillAnswers(store.db, 5000); found > 0; found = await fillAnswers(store.db, 5000)) {
    filled += found;
  }
  if (filled > 0) await sql`VACUUM ANALYZE notifications`.execute(store.db);
  return filled;
}
