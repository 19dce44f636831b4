/**
 * Loads the demo generator's data at benchmark scale.
 *   npm run bench:data -- [--subscribers 1000000] [--notifications 1000000] [--database-url URL] [--reset]
 *   npm run bench:data -- --pglite DIR   (PGlite, default 100,000 of each; the benchmark reads .data/bench-pglite)
 *   npm run bench:data -- --one-thread   (the batches built on the loader's thread, as `npm start` loads the demo)
 * Without --database-url it uses the `novu_bench` database of the private cluster (scripts/postgres.sh).
 * Secondary indexes are dropped during the load and rebuilt after it (much faster than updating them row by row),
 * then the tables are vacuumed and analyzed so that plans and index-only scans are what production would see.
 * Writes bench/results/load-<date>.json and re-renders bench/RESULTS.md with it (the rest from the latest full run).
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { defaultDemoOptions } from "../server/demo/generate.js";
import { defaultBatchSize, type LoadProgress, loadDemo } from "../server/demo/load.js";
import { hasCitus } from "../server/store/citus-shards.js";
import { openStore, type Store } from "../server/store/store.js";
import { batchesOnWorkerThread } from "./batch-thread.js";
import { benchDatabaseUrl, defaultPgliteDir } from "./database.js";
import { writeLoadResult } from "./load-results.js";
import { rerenderResults } from "./report.js";

/** Production gets 95% of the rows, so that a cursor can be 900,000 rows deep in one environment. */
export const benchEnvironmentShares = [
  { name: "Production", share: 0.95 },
  { name: "Development", share: 0.05 },
];

exitWithUsageIfAsked(
  "Usage: npm run bench:data -- [--subscribers N] [--notifications N] [--database-url URL] [--reset] [--batch-size N] [--scratch] [--one-thread]\n" +
    "       npm run bench:data -- --pglite DIR [--subscribers N] [--notifications N] [--reset]",
);
const { values } = parseArgs({
  options: {
    subscribers: { type: "string" },
    notifications: { type: "string" },
    "database-url": { type: "string" },
    pglite: { type: "string" },
    reset: { type: "boolean", default: false },
    "batch-size": { type: "string", default: String(defaultBatchSize) },
    // A load for another benchmark's own database (bench/citus.ts): its rate is not the bench data's.
    scratch: { type: "boolean", default: false },
    // The batches built on this thread instead of a worker thread's (bench/batch-thread.ts): to compare the two.
    "one-thread": { type: "boolean", default: false },
  },
});
const onPglite = values.pglite !== undefined;
const fallback = onPglite ? 100_000 : 1_000_000;
const count = (raw: string | undefined, name: string) => {
  const value = raw === undefined ? fallback : Number(raw.replaceAll("_", ""));
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  return value;
};
const subscribers = count(values.subscribers, "subscribers");
const notifications = count(values.notifications, "notifications");
const pgliteDir = values.pglite || defaultPgliteDir;

if (onPglite && values.reset) rmSync(pgliteDir, { recursive: true, force: true });
const opened = await openStore({
  ...(onPglite ? { dataDir: pgliteDir } : { databaseUrl: await benchDatabaseUrl(values["database-url"]) }),
  totalCountCap: 50_000,
});
const { store } = opened;
process.stderr.write(
  `Loading ${subscribers.toLocaleString("en")} subscribers and ${notifications.toLocaleString("en")} notifications into ${opened.location}\n`,
);

if (!(await store.isEmpty())) {
  if (!values.reset) {
    await opened.close();
    throw new Error("the database already holds data: pass --reset to replace it");
  }
  // CASCADE: the counts the triggers keep (and anything else that refers to an environment) go with the rows.
  await sql`TRUNCATE idempotency_records, notifications, subscribers, workflows, api_keys, environments, organizations CASCADE`.execute(
    store.db,
  );
}

const indexes = await dropSecondaryIndexes(store);
const started = performance.now();
const bar = progressBar();
const pace = tablePace();
await loadDemo(
  store,
  { ...defaultDemoOptions, subscribers, notifications, environmentShares: benchEnvironmentShares },
  {
    batchSize: Number(values["batch-size"]),
    // Analyzed below, once the indexes are back.
    analyze: false,
    ...(values["one-thread"] ? {} : { prepare: batchesOnWorkerThread }),
    onProgress: (progress) => {
      bar(progress);
      pace.record(progress);
    },
  },
);
const loadedSeconds = (performance.now() - started) / 1000;
process.stderr.write(`\nRebuilding ${indexes.length} indexes...\n`);
const indexStarted = performance.now();
await store.transaction(async (tx) => {
  await sql`SET LOCAL maintenance_work_mem = '512MB'`.execute(tx.db);
  // On Citus, an index whose shard names grow too long is built one shard at a time; elsewhere a setting no one reads.
  await sql`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`.execute(tx.db);
  for (const index of indexes) await sql.raw(index.definition).execute(tx.db);
});
const indexSeconds = (performance.now() - indexStarted) / 1000;
process.stderr.write("VACUUM ANALYZE...\n");
const vacuumStarted = performance.now();
await sql`VACUUM ANALYZE`.execute(store.db);
// On a Citus coordinator a VACUUM without table names stays on the coordinator: the shards are analyzed by name.
if (await hasCitus(store.db)) await sql`ANALYZE subscribers, notifications, workflows`.execute(store.db);
const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
const rows = subscribers + notifications;
process.stdout.write(
  `Loaded ${rows.toLocaleString("en")} rows in ${loadedSeconds.toFixed(1)} s (${Math.round(rows / loadedSeconds).toLocaleString("en")} rows/s); ` +
    `indexes ${indexSeconds.toFixed(1)} s; vacuum/analyze ${vacuumSeconds.toFixed(1)} s\n`,
);
await opened.close();
if (!onPglite && !values.scratch) {
  const file = writeLoadResult("bench", {
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    node: process.version,
    subscribers,
    notifications,
    rows,
    seconds: Math.round(loadedSeconds * 10) / 10,
    rowsPerSecond: Math.round(rows / loadedSeconds),
    tables: pace.tables(),
    indexSeconds: Math.round(indexSeconds * 10) / 10,
    vacuumSeconds: Math.round(vacuumSeconds * 10) / 10,
    batchesBuiltOn: values["one-thread"] ? "the loader's thread" : "a worker thread",
  });
  process.stdout.write(`Wrote ${file}\n`);
  // The target on loading is judged from the newest load: RESULTS.md says it now, as bench:overload and bench:citus do
  // for theirs (the rest of it stays the latest full run's; the re-render takes each section's newest measurement).
  rerenderResults("bench");
}

/**
 * Drops every index of the big tables (the subscribers' order rows too, migration 010) that no constraint needs, and
 * returns the statements to rebuild them.
 */
async function dropSecondaryIndexes(target: Store): Promise<{ name: string; definition: string }[]> {
  const { rows: found } = await sql<{ name: string; definition: string }>`
    SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_class t ON t.oid = i.indrelid
    WHERE t.relname IN ('subscribers', 'subscriber_update_order', 'notifications')
      AND NOT i.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
    ORDER BY c.relname`.execute(target.db);
  for (const index of found) await sql`DROP INDEX ${sql.id(index.name)}`.execute(target.db);
  // An index on a partitioned table reads "ON ONLY" (the parent alone); rebuilt, it must cover the partitions too.
  return found.map((index) => ({ ...index, definition: index.definition.replace(" ON ONLY ", " ON ") }));
}

/** Each table's rows a second: whole, over its first tenth and over its last tenth (steady as the table grows?). */
function tablePace() {
  const marks = new Map<string, { began: number; points: { at: number; done: number }[]; total: number }>();
  let last = performance.now();
  return {
    record({ table, done, total }: LoadProgress) {
      const now = performance.now();
      let mark = marks.get(table);
      if (!mark) {
        // The table's clock starts where the previous one's stopped (progress comes after each batch).
        mark = { began: last, points: [], total };
        marks.set(table, mark);
      }
      mark.points.push({ at: now, done });
      last = now;
    },
    tables() {
      return [...marks].map(([table, { began, points, total }]) => {
        const rate = (from: { at: number; done: number }, to: { at: number; done: number }) =>
          Math.round((to.done - from.done) / Math.max((to.at - from.at) / 1000, 0.001));
        const start = { at: began, done: 0 };
        const end = points.at(-1) ?? start;
        const firstTenth = points.find((point) => point.done >= total / 10) ?? end;
        const lastTenth = points.findLast((point) => point.done <= total - total / 10) ?? start;
        return {
          table,
          rowsPerSecond: rate(start, end),
          firstTenth: rate(start, firstTenth),
          lastTenth: rate(lastTenth, end),
        };
      });
    },
  };
}

function progressBar() {
  const began = performance.now();
  let lastDraw = 0;
  let table = "";
  let tableBegan = began;
  return ({ table: current, done, total }: LoadProgress) => {
    const now = performance.now();
    if (current !== table) {
      table = current;
      tableBegan = now;
      if (lastDraw) process.stderr.write("\n");
    }
    if (now - lastDraw < (process.stderr.isTTY ? 250 : 5000) && done < total) return;
    lastDraw = now;
    const share = total ? done / total : 1;
    const width = 30;
    const filled = Math.round(share * width);
    const rate = Math.round(done / Math.max((now - tableBegan) / 1000, 0.001));
    const line = `${table.padEnd(13)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${done.toLocaleString("en")}/${total.toLocaleString("en")} ${rate.toLocaleString("en")} rows/s`;
    process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`);
  };
}
