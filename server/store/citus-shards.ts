/**
 * What the store needs to know of Citus (docs/decisions.md, D41): whether its database is a Citus coordinator, and, in
 * a command that `run_command_on_shards('subscribers', …)` sends to each of the table's shards, the name of that shard's
 * copy of an index (an index's shard copy is named after it and the shard's number: `subscribers_email_grams_102008`).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

/** Whether the database is a Citus coordinator: the citus extension is installed in it. */
export async function hasCitus(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ citus: boolean }>`
    SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`.execute(db);
  return rows[0]?.citus === true;
}

/**
 * SQL text naming the shard's copy of an index, for a command sent by run_command_on_shards (which puts the shard's
 * name, `subscribers_102008`, in place of `%1$s`); `index` is SQL text too: a quoted literal or a column.
 */
export function shardIndexName(index: string): string {
  return `${index} || '_' || substring('%1$s' from '[0-9]+$')`;
}
