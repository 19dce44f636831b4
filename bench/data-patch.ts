/**
 * PATCHes of `data` from 16 connections at once (`npm run bench:patches`): what keeping the `updatedAt` order beside
 * the subscribers (migration 010: their PATCHes are HOT updates, which touch no index) gains over indexing `updated_at`
 * on the row, as before it (every PATCH a new entry in each of the table's indexes, the six gram indexes included).
 * Both layouts on one database, switched between interleaved rounds (the index made or dropped), so that nothing but
 * the layout differs; medians and ratios. The PATCH writes the order row in both (its statement does), so the old
 * layout is measured with that cost too: the ratio is, if anything, low. On PostgreSQL
 * (the private cluster, or BENCH_DATABASE_URL's server), PGlite (one connection) and Citus when its source is at hand.
 * Store calls in one transaction with the idempotency record, as the server runs a PATCH. Then, on PostgreSQL and PGlite, the
 * same PATCHes with the kept counts' UPDATE trigger as a row trigger with a WHEN (migration 014, D81) beside the
 * statement trigger it replaced. Writes bench/DATA-PATCH.md.
 */
import { writeFileSync } from "node:fs";
import { type Kysely, sql } from "kysely";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { DatabaseIdempotencyStore } from "../server/database-idempotency.js";
import type { Database } from "../server/store/schema.js";
import { type OpenedStore, openStore } from "../server/store/store.js";
import { patchAsServer } from "./patch-as-server.js";
import { loadPatchTargets, withScratchCitus, withScratchPostgres } from "./patch-bench-databases.js";
import { median, summarize } from "./stats.js";
import { storeClosedLoop } from "./store-alone.js";

exitWithUsageIfAsked(
  "Usage: npm run bench:patches -- [--no-citus]   (BENCH_PATCH_SUBSCRIBERS, BENCH_PATCH_SECONDS, BENCH_DATABASE_URL) writes bench/DATA-PATCH.md",
);

const subscribers = Number(process.env.BENCH_PATCH_SUBSCRIBERS ?? 50_000);
const connections = 16;
const seconds = Number(process.env.BENCH_PATCH_SECONDS ?? 5);
const rounds = 5;

interface Target {
  store: OpenedStore;
  environmentId: string;
  subscriberIds: string[];
  /** Whether the HOT share can be read here (not on Citus, whose shards' statistics are on the workers). */
  counted: boolean;
}

interface Variant {
  name: string;
  /** What makes this variant from the other one (in one transaction). */
  statements: readonly string[];
}

/** The two layouts, each made from the other by its statements. */
const layouts = [
  { name: "order beside the row", statements: ["DROP INDEX IF EXISTS subscribers_order_updated"] },
  {
    name: "updated_at indexed on the row",
    statements: [
      "CREATE INDEX subscribers_order_updated ON subscribers (environment_id, updated_at, id) WHERE NOT deleted",
    ],
  },
] as const satisfies readonly Variant[];

/**
 * The kept counts' UPDATE trigger (D81): the one the migrations made (migration 014: a row trigger whose WHEN compares
 * the searched columns), read from the database, and the statement trigger over transition tables that migration 006
 * made, which ran its function on every UPDATE. Not on Citus, which has only ever run the row trigger
 * (citus/distribute.sql).
 */
async function countTriggers(db: Kysely<Database>): Promise<[Variant, Variant]> {
  const { rows } = await sql<{ definition: string }>`
    SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger
    WHERE tgrelid = 'subscribers'::regclass AND tgname = 'subscribers_kept_counts_update'`.execute(db);
  const migrated = rows[0]?.definition;
  if (!migrated?.includes("FOR EACH ROW")) throw new Error(`not the row trigger of migration 014: ${migrated}`);
  const drop = "DROP TRIGGER subscribers_kept_counts_update ON subscribers";
  return [
    { name: "row trigger with WHEN (014)", statements: [drop, migrated] },
    {
      name: "statement trigger (006)",
      statements: [
        drop,
        `CREATE TRIGGER subscribers_kept_counts_update AFTER UPDATE ON subscribers
          REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
          EXECUTE FUNCTION count_subscriber_statement()`,
      ],
    },
  ];
}

async function switchTo(db: Kysely<Database>, variant: Variant): Promise<void> {
  await db.transaction().execute(async (tx) => {
    // Citus: its tables' triggers made and dropped only with the first setting, and DDL with a statement over every
    // shard in one transaction only on one connection per node (kept-counts.ts).
    await sql`SET LOCAL citus.enable_unsafe_triggers = on`.execute(tx);
    await sql`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`.execute(tx);
    for (const statement of variant.statements) await sql.raw(statement).execute(tx);
  });
  await sql`ANALYZE subscribers`.execute(db);
}

async function prepare(store: OpenedStore, counted: boolean): Promise<Target> {
  return { store, ...(await loadPatchTargets(store, subscribers)), counted };
}

let keys = 0;
let patches = 0;

/** A `data` PATCH, run as the server runs it: its idempotency key's lock and stored answer in the same statement. */
function dataPatch(target: Target, idempotency: DatabaseIdempotencyStore) {
  return async () => {
    const n = patches++;
    // Spread over the table (7,919 is prime): consecutive PATCHes from the 16 loops land on different pages, as
    // PATCHes of a real environment's subscribers do, not on neighbours that share a page.
    const id = target.subscriberIds[(n * 7919) % target.subscriberIds.length] as string;
    const body = { data: { plan: n % 2 === 0 ? "team" : "enterprise", seats: n } };
    await patchAsServer(idempotency, target.store.store, {
      environmentId: target.environmentId,
      subscriberId: id,
      body,
      key: `patches-${process.pid}-${keys++}`,
    });
  };
}

/**
 * The subscribers' updates and HOT updates so far, as PostgreSQL's statistics have them once every backend reported
 * its own: a busy backend reports at most once a second, an idle one within ten (PGSTAT_IDLE_INTERVAL).
 */
async function updateCounts(db: Kysely<Database>, settle: boolean): Promise<{ updated: number; hot: number }> {
  if (settle) await new Promise((resolve) => setTimeout(resolve, 11_000));
  const { rows } = await sql<{ updated: string; hot: string }>`
    SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'subscribers'`.execute(
    db,
  );
  return { updated: Number(rows[0]?.updated), hot: Number(rows[0]?.hot) };
}

async function round(target: Target, loops: number) {
  const db = target.store.store.db;
  // Nothing updates a subscriber between rounds: the counts settled after the last one are the ones before this one.
  const before = target.counted ? await updateCounts(db, false) : undefined;
  const run = await storeClosedLoop(
    target.store.store,
    dataPatch(target, new DatabaseIdempotencyStore(target.store.store)),
    { connections: loops, seconds },
  );
  if (run.errors > 0) throw new Error(`${run.errors} data PATCHes failed in a round`);
  let hotShare: number | undefined;
  if (before) {
    const after = await updateCounts(db, true);
    hotShare = (after.hot - before.hot) / Math.max(1, after.updated - before.updated);
  }
  return { perSecond: run.requestsPerSecond, p50: summarize(run.latenciesMs).p50, hotShare };
}

/** Interleaved rounds of two variants on one database, the first left in place: medians. */
async function compare(target: Target, loops: number, variants: readonly [Variant, Variant]) {
  const runs: Awaited<ReturnType<typeof round>>[][] = [[], []];
  for (let r = 0; r < rounds; r++) {
    for (const [at, variant] of variants.entries()) {
      await switchTo(target.store.store.db, variant);
      runs[at]?.push(await round(target, loops));
    }
  }
  await switchTo(target.store.store.db, variants[0]);
  return variants.map((variant, at) => {
    const shares = (runs[at] ?? []).flatMap((run) => (run.hotShare === undefined ? [] : [run.hotShare]));
    return {
      name: variant.name,
      perSecond: median((runs[at] ?? []).map((run) => run.perSecond)),
      p50: median((runs[at] ?? []).map((run) => run.p50)),
      hotShare: shares.length > 0 ? median(shares) : undefined,
    };
  });
}

/** Both layouts; the old one checked to update no row in place of its version. */
async function compareLayouts(target: Target, loops: number) {
  const results = await compare(target, loops, layouts);
  if (results[1]?.hotShare !== undefined && results[1].hotShare > 0) {
    throw new Error(`"${layouts[1].name}" rounds made ${results[1].hotShare} of their updates HOT`);
  }
  return results;
}

/** Both count triggers, after the layouts (the order beside the row in place), the HOT share not read. */
const compareTriggers = async (target: Target, loops: number) =>
  compare({ ...target, counted: false }, loops, await countTriggers(target.store.store.db));

const onPostgres = () =>
  withScratchPostgres("novu_bench_patches", connections, async (store) => {
    const target = await prepare(store, true);
    return { layouts: await compareLayouts(target, connections), triggers: await compareTriggers(target, connections) };
  });

async function onPglite() {
  const store = await openStore({ totalCountCap: 50_000 });
  try {
    const target = await prepare(store, true);
    return { layouts: await compareLayouts(target, 1), triggers: await compareTriggers(target, 1) };
  } finally {
    await store.close();
  }
}

/** On Citus, when its source is at hand (the HOT share not read: the shards' statistics are on the workers). */
const onCitus = () =>
  withScratchCitus("novu_bench_patches_citus", connections, async (store) =>
    compareLayouts(await prepare(store, false), connections),
  );

const postgresResults = await onPostgres();
console.log("PostgreSQL", postgresResults);
const pgliteResults = await onPglite();
console.log("PGlite", pgliteResults);
const citusResults = process.argv.includes("--no-citus") ? undefined : await onCitus();

type Compared = Awaited<ReturnType<typeof compareLayouts>>;
const share = (value: number | undefined) => (value === undefined ? "n/a" : `${Math.round(value * 100)}%`);
/** A table row: rates, their ratio and p50s, and the HOT shares where the table has them. */
const row = (driver: string, results: Compared, hot = true) => {
  const [now, before] = results as [Compared[0], Compared[0]];
  const cells = [
    driver,
    now.perSecond.toFixed(0),
    before.perSecond.toFixed(0),
    `**${(now.perSecond / before.perSecond).toFixed(2)}×**`,
    now.p50.toFixed(2),
    before.p50.toFixed(2),
    ...(hot ? [share(now.hotShare), share(before.hotShare)] : []),
  ];
  return `| ${cells.join(" | ")} |`;
};
const report = `# Data PATCHes: the update order and the count trigger

\`npm run bench:patches\` (bench/data-patch.ts), ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node},
${subscribers.toLocaleString("en-US")} demo subscribers. PATCHes of \`data\` (what no index reads), each run as the server runs a
PATCH (one transaction with its idempotency key's lock and stored answer); ${rounds} interleaved rounds of ${seconds} s per
variant on one database, medians.

## The update order beside the row

"Order beside the row" is migration 010: the \`updatedAt\` order in
\`subscriber_update_order\`, written by the PATCH's own statement, so that the subscriber's update is HOT
(PostgreSQL writes the new version on the same page and no index entry). "updated_at indexed on the row" is the same
database with the index of before migration 010 made again: every PATCH a new entry in each of the table's indexes
(and, here, the order row written as well, which before migration 010 was not: the ratio is, if anything, low).

| database | order beside the row (PATCH/s) | updated_at indexed on the row (PATCH/s) | ratio | p50 ms, beside | p50 ms, indexed | HOT updates, beside | HOT updates, indexed |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${row(`PostgreSQL, ${connections} connections`, postgresResults.layouts)}
${row("PGlite, one connection", pgliteResults.layouts)}
${citusResults ? row(`Citus, coordinator and 2 workers, ${connections} connections`, citusResults) : "| Citus | not measured: no Citus source here (scripts/citus.sh source) | | | | | | |"}

HOT updates: the share of the subscribers' updates in a round that were HOT (\`pg_stat_user_tables\`); on Citus the
shards' statistics are on the workers, so not read.

## The kept counts' UPDATE trigger (D81)

The order beside the row in place. "Row trigger with WHEN" is migration 014: the kept counts' UPDATE trigger on
subscribers fires only for a row whose searched columns or \`deleted\` changed, so a \`data\` PATCH fires nothing.
"Statement trigger" is the same database with migration 006's trigger made again: a statement trigger over transition
tables, whose function ran on every UPDATE to find that nothing was to be counted. Not on Citus, which has only ever
run the row trigger (it runs no transition tables).

| database | row trigger with WHEN (PATCH/s) | statement trigger (PATCH/s) | ratio | p50 ms, row trigger | p50 ms, statement trigger |
| --- | ---: | ---: | ---: | ---: | ---: |
${row(`PostgreSQL, ${connections} connections`, postgresResults.triggers, false)}
${row("PGlite, one connection", pgliteResults.triggers, false)}
`;
writeFileSync(new URL("./DATA-PATCH.md", import.meta.url), report);
console.log(report);
