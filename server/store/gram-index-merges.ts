/**
 * Merges the pending entries of the substring filters' gram indexes into the indexes, off the request path.
 *
 * A PATCH that changes a searched column (a name, an e-mail, a phone) adds its grams to each gram index's pending list
 * (a PATCH of anything else is a HOT update, which adds none: migration 010), and the PATCH that finds the list past its 64 kB limit (migration 002) merges it, some 15-45 ms on the bench data,
 * inside its own request. Merging a few times a second from the server instead keeps the lists under the limit at
 * moderate write rates: at 200 PATCHes/s on the bench data, PATCH p99 15-17 ms without it, 6-7 ms with it. A PATCH
 * never waits for it (PostgreSQL lets only one backend merge a list and the others skip), and with several instances
 * each merge finds less to do.
 */
import { type Kysely, sql } from "kysely";
import { hasCitus, shardIndexName } from "./citus-shards.js";
import type { Database } from "./schema.js";
import { substringIndexes } from "./substring-filter.js";

/** Whether each database is a Citus coordinator, asked once per database handle. */
const onCitus = new WeakMap<Kysely<Database>, Promise<boolean>>();

/**
 * Merges every gram index's pending list; returns how many pending pages it merged. On a Citus coordinator the lists
 * are the shards' (the coordinator's indexes hold no rows): the merge runs on every shard, each index under its shard's
 * name (`subscribers_email_grams_102008`), a statement that fans out by design (docs/decisions.md, D41).
 */
export async function mergeGramIndexes(db: Kysely<Database>): Promise<number> {
  let citus = onCitus.get(db);
  if (!citus) {
    citus = hasCitus(db);
    onCitus.set(db, citus);
  }
  if (await citus) {
    const merges = substringIndexes
      .map((index) => `gin_clean_pending_list((${shardIndexName(`'${index}'`)})::regclass)`)
      .join(" + ");
    const { rows } = await sql<{ pages: string }>`
      SELECT coalesce(sum(result::bigint), 0) AS pages
      FROM run_command_on_shards('subscribers', ${`SELECT ${merges}`}) WHERE success`.execute(db);
    return Number(rows[0]?.pages ?? 0);
  }
  const merges = substringIndexes.map((index) => sql`gin_clean_pending_list(${index}::regclass)`);
  const { rows } = await sql<{ pages: string }>`SELECT ${sql.join(merges, sql` + `)} AS pages`.execute(db);
  return Number(rows[0]?.pages ?? 0);
}

/**
 * Merges every `intervalMs`, one merge at a time, until stopped; never when `intervalMs` is 0
 * (GRAM_MERGE_INTERVAL_MS=0). A failure is reported once and ends the loop (the usual one: the server's database role
 * does not own the indexes, which merging requires).
 */
export function mergeGramIndexesEvery(
  db: Kysely<Database>,
  intervalMs: number,
  onError: (error: unknown) => void,
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const next = () => {
    if (stopped || intervalMs <= 0) return;
    timer = setTimeout(() => {
      running = mergeGramIndexes(db).then(next, (error) => {
        if (!stopped) onError(error);
      });
    }, intervalMs);
    timer.unref();
  };
  next();
  return {
    /** Stops the loop; resolves once a merge already under way has finished, so none runs after it. */
    stop() {
      stopped = true;
      clearTimeout(timer);
      return running;
    },
  };
}
