/**
 * What a write costs: new subscribers and notifications written into the benchmark's million-row tables, as another
 * system creating them all day would write them, beside the same rows written with PostgreSQL alone.
 * - bulk: batches of 1,000 rows, one transaction each, through the store's bulk insert, every index and count trigger
 *   in place (the live path; `bench:data` and the demo loader recount once instead, server/store/kept-counts.ts);
 * - single rows: one insert per transaction at a fixed rate, latency from the moment each was due;
 * - PostgreSQL alone: the same rows through `COPY` (bulk) and one plain `INSERT` each (single rows) into a copy of the
 *   table with its columns and primary key only: no count triggers, no search indexes, no partitions.
 * The rows written are deleted afterwards (and vacuumed away), and the kept counts put back as they were before.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { defaultDemoOptions, generateDemoData } from "../server/demo/generate.js";
import {
  insertNotifications,
  insertNotificationsStatement,
  insertSubscribers,
  insertSubscribersStatement,
  notificationColumnTypes,
  notificationInsert,
  subscriberColumnTypes,
} from "../server/store/bulk-insert.js";
import { keptCountTables } from "../server/store/kept-counts.js";
import type { NotificationRow, SubscriberRow } from "../server/store/rows.js";
import type { Store } from "../server/store/store.js";
import { onSchedule } from "./fixed-rate.js";
import { type Summary, summarize } from "./stats.js";
import { vacuumWrittenTables } from "./vacuum.js";

export interface IngestTable {
  table: "subscribers" | "notifications";
  rows: number;
  /** Rows a second in batches of 1,000: ours, and PostgreSQL's own COPY into the bare table. */
  bulkRowsPerSecond: number;
  aloneBulkRowsPerSecond: number;
  /** One row per transaction at `singleRate` a second, ms from when each was due. */
  single: Summary;
  aloneSingle: Summary;
  singleRate: number;
  /** Where one batch's time goes (EXPLAIN ANALYZE of one 1,000-row insert, rolled back), in ms. */
  split: InsertSplit;
}

export interface InsertSplit {
  total: number;
  /** Each trigger's time: the count triggers, and the foreign key checks (by their constraint's name). */
  triggers: { name: string; ms: number; calls: number }[];
  /** The rest: the rows into the table (partition routing, generated columns) and into every index. */
  rowsAndIndexes: number;
}

const batchSize = 1000;
/** The ids of the rows written start with it: an ObjectId's first two hex digits, seconds in the year 2096. */
const writtenPrefix = "ee";

/** A row as a line of COPY's text format: `json` names the jsonb columns, other arrays are PostgreSQL arrays. */
function copyLine(row: SubscriberRow | NotificationRow, columns: readonly string[], json: ReadonlySet<string>): string {
  return columns
    .map((column) => {
      const value = field(row, column);
      if (value === null || value === undefined) return "\\N";
      const text = json.has(column)
        ? JSON.stringify(value)
        : Array.isArray(value)
          ? `{${value.map((item) => `"${String(item).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`
          : String(value);
      return text.replaceAll("\\", "\\\\").replaceAll("\t", "\\t").replaceAll("\n", "\\n").replaceAll("\r", "\\r");
    })
    .join("\t");
}

/** A row's values for a parameterised INSERT: jsonb columns as JSON text, arrays as the driver sends them. */
function insertValues(row: SubscriberRow | NotificationRow, columns: readonly string[], json: ReadonlySet<string>) {
  return columns.map((column) => {
    const value = field(row, column);
    return json.has(column) && value !== null ? JSON.stringify(value) : value;
  });
}

const subscriberColumns = Object.keys(subscriberColumnTypes);
const notificationColumns = Object.keys(notificationColumnTypes);
/** The jsonb columns, whose values COPY and a plain INSERT take as JSON text. */
const jsonColumns = {
  subscribers: jsonbColumns(subscriberColumnTypes),
  notifications: jsonbColumns(notificationColumnTypes),
};

function jsonbColumns(types: Record<string, string>): ReadonlySet<string> {
  return new Set(Object.keys(types).filter((column) => types[column] === "jsonb"));
}

function field(row: SubscriberRow | NotificationRow, column: string): unknown {
  // A notification's `answer` is made from its row as the bulk insert makes it (D59): its cost is the writer's.
  if (column === "answer" && "details" in row) return notificationInsert(row).answer;
  return (row as unknown as Record<string, unknown>)[column];
}

/** The kept counts as they were before the benchmark's writes, in tables of their own (a pool has many sessions). */
async function saveKeptCounts(store: Store): Promise<void> {
  for (const table of keptCountTables) {
    await sql`DROP TABLE IF EXISTS ${sql.table(`bench_saved_${table}`)}`.execute(store.db);
    await sql`CREATE TABLE ${sql.table(`bench_saved_${table}`)} AS TABLE ${sql.table(table)}`.execute(store.db);
  }
}

/**
 * Deletes the rows the benchmark wrote and puts the kept counts back as they were. Not through the triggers: a
 * subscriber's delete checks its foreign key from notifications, whose indexes all lead with the environment, so
 * PostgreSQL reads every notification for each deleted subscriber (20,000 of them took many minutes). The rows
 * written refer only to each other, so nothing else can break; the counts are exactly the saved ones again.
 */
async function removeWrittenRows(store: Store): Promise<void> {
  await store.transaction(async (tx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(tx.db);
    await sql`DELETE FROM notifications WHERE id LIKE ${`${writtenPrefix}%`}`.execute(tx.db);
    await sql`DELETE FROM subscribers WHERE id LIKE ${`${writtenPrefix}%`}`.execute(tx.db);
    // The foreign key's cascade is a trigger too, off here: the subscribers' order rows (migration 010) go by hand.
    await removeWrittenOrderRows(tx.db);
    await sql`SET LOCAL session_replication_role = origin`.execute(tx.db);
    for (const table of keptCountTables) {
      await sql`DELETE FROM ${sql.table(table)}`.execute(tx.db);
      await sql`INSERT INTO ${sql.table(table)} SELECT * FROM ${sql.table(`bench_saved_${table}`)}`.execute(tx.db);
    }
  });
  for (const table of keptCountTables) {
    await sql`DROP TABLE IF EXISTS ${sql.table(`bench_saved_${table}`)}`.execute(store.db);
  }
  // The deleted rows' index entries stay until a VACUUM, and autovacuum does not start for 42,000 of a million rows.
  // Their ids sort last, where a search's first page (_id DESC) is read: the next run's backward scan walked 457 pages
  // of them for 11 rows instead of 13 (0.32 ms against 0.08). The VACUUM waits for the autovacuum's ANALYZE that the
  // new notifications start (its snapshot would keep them), so the next run measures the tables as `bench:data` left
  // them (bench/vacuum.ts; `npm run bench` also vacuums them before it measures).
  await vacuumWrittenTables(store.db, (message) => console.warn(message));
}

/**
 * The order rows of the subscribers the benchmark wrote. Also run before it writes: a run before this cleanup deleted
 * its subscribers without their order rows, whose ids the next run's subscribers would take again.
 */
async function removeWrittenOrderRows(db: Store["db"]): Promise<void> {
  await sql`DELETE FROM subscriber_update_order WHERE id LIKE ${`${writtenPrefix}%`}`.execute(db);
}

class RollBack extends Error {}

/** EXPLAIN ANALYZE of one batch's insert, in a transaction rolled back afterwards. */
async function splitInsert(
  store: Store,
  statement: ReturnType<typeof insertSubscribersStatement>,
): Promise<InsertSplit> {
  let split: InsertSplit | undefined;
  try {
    await store.transaction(async (tx) => {
      const { rows } = await sql<{ "QUERY PLAN": unknown }>`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`.execute(tx.db);
      // node-postgres parses the json column; PGlite may hand it over as text.
      const raw = rows[0]?.["QUERY PLAN"];
      const [plan] = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
        "Execution Time": number;
        Triggers?: { "Trigger Name": string; "Constraint Name"?: string; Time: number; Calls: number }[];
      }[];
      const triggers = (plan?.Triggers ?? []).map((trigger) => ({
        // A foreign key's check is a trigger named after its constraint's oid: show the constraint's name.
        name: trigger["Constraint Name"] ?? trigger["Trigger Name"],
        ms: Math.round(trigger.Time * 10) / 10,
        calls: trigger.Calls,
      }));
      const total = Math.round((plan?.["Execution Time"] ?? 0) * 10) / 10;
      split = {
        total,
        triggers,
        rowsAndIndexes: Math.round((total - triggers.reduce((sum, trigger) => sum + trigger.ms, 0)) * 10) / 10,
      };
      throw new RollBack();
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  }
  return split as InsertSplit;
}

/** Latency of each write from when it was due, the writes started at a fixed rate (fixed-rate.ts). */
async function atFixedRate(count: number, rate: number, write: (i: number) => Promise<void>): Promise<Summary> {
  const latencies: number[] = [];
  await onSchedule(count, rate, async (i, due) => {
    await write(i);
    latencies.push(performance.now() - due);
  });
  return summarize(latencies);
}

/**
 * Writes `count` new subscribers and as many notifications into the benchmarked environment, and the same rows into
 * bare copies of the tables with PostgreSQL alone; `databaseUrl` is for psql's COPY.
 */
export async function measureIngest(
  store: Store,
  databaseUrl: string,
  target: { environmentId: string; organizationId: string; workflowIds: string[] },
  options: { count: number; singleRate: number; singles: number },
): Promise<IngestTable[]> {
  // The demo generator's rows, moved into the benchmarked environment under ids of their own.
  const [generated] = generateDemoData({
    ...defaultDemoOptions,
    seed: 20261124,
    subscribers: options.count + options.singles,
    notifications: options.count + options.singles,
    environmentShares: [{ name: "Ingest", share: 1 }],
  });
  if (!generated) throw new Error("the generator made no environment");
  const mark = (id: string) => `${writtenPrefix}${id.slice(2)}`;
  const subscribers: SubscriberRow[] = generated.subscribers.map((row) => ({
    ...row,
    id: mark(row.id),
    subscriber_id: `ingest-${row.subscriber_id}`,
    environment_id: target.environmentId,
    organization_id: target.organizationId,
  }));
  const notifications: NotificationRow[] = generated.notifications.map((row, i) => ({
    ...row,
    id: mark(row.id),
    subscriber_id: mark(row.subscriber_id),
    environment_id: target.environmentId,
    organization_id: target.organizationId,
    template_id: target.workflowIds[i % target.workflowIds.length] as string,
    digested_notification_id: null,
  }));
  await removeWrittenOrderRows(store.db);
  await saveKeptCounts(store);
  const dir = mkdtempSync(join(os.tmpdir(), "bench-ingest-"));
  const psql = (args: string[]) =>
    execFileSync("psql", [databaseUrl, "-qAtX", "-v", "ON_ERROR_STOP=1", ...args], {
      env: { ...process.env, PGOPTIONS: "-c client_min_messages=warning" },
    });
  const results: IngestTable[] = [];
  try {
    for (const [table, rows, columns, insert] of [
      ["subscribers", subscribers, subscriberColumns, insertSubscribers],
      ["notifications", notifications, notificationColumns, insertNotifications],
    ] as const) {
      const json = jsonColumns[table];
      const write = insert as (db: Store["db"], rows: readonly (SubscriberRow | NotificationRow)[]) => Promise<void>;
      const statement = (table === "subscribers" ? insertSubscribersStatement : insertNotificationsStatement) as (
        rows: readonly (SubscriberRow | NotificationRow)[],
      ) => ReturnType<typeof insertSubscribersStatement>;
      const bulk = rows.slice(0, options.count);
      const singles = rows.slice(options.count);
      const bare = `bench_ingest_${table}`;
      // The same columns (generated ones too) and the primary key; no triggers, no other index, no partitions.
      psql([
        "-c",
        `DROP TABLE IF EXISTS ${bare}; CREATE TABLE ${bare} (LIKE ${table} INCLUDING DEFAULTS INCLUDING GENERATED);
         ALTER TABLE ${bare} ADD PRIMARY KEY (id)`,
      ]);

      // Where one batch's time goes, on the first batch's rows (rolled back, then written again below).
      const split = await splitInsert(store, statement(bulk.slice(0, batchSize)));
      let began = performance.now();
      for (let at = 0; at < bulk.length; at += batchSize) {
        await store.transaction((tx) => write(tx.db, bulk.slice(at, at + batchSize)));
      }
      const bulkRowsPerSecond = bulk.length / ((performance.now() - began) / 1000);

      // One psql session, one COPY (and so one transaction) per batch, the files written before the clock starts.
      const script: string[] = [];
      for (let at = 0; at < bulk.length; at += batchSize) {
        const part = join(dir, `${table}-${at}.tsv`);
        const lines = bulk.slice(at, at + batchSize).map((row) => copyLine(row, columns, json));
        writeFileSync(part, `${lines.join("\n")}\n`);
        script.push(`\\copy ${bare} (${columns.join(", ")}) FROM '${part}'`);
      }
      writeFileSync(join(dir, "copy.sql"), `${script.join("\n")}\n`);
      began = performance.now();
      psql(["-f", join(dir, "copy.sql")]);
      const aloneBulkRowsPerSecond = bulk.length / ((performance.now() - began) / 1000);

      const single = await atFixedRate(singles.length, options.singleRate, (i) =>
        store.transaction((tx) => write(tx.db, [singles[i] as SubscriberRow])),
      );
      const insertBare = sql.raw(`INSERT INTO ${bare} (${columns.join(", ")}) VALUES `);
      const aloneSingle = await atFixedRate(singles.length, options.singleRate, async (i) => {
        const values = insertValues(singles[i] as SubscriberRow, columns, json);
        await sql`${insertBare}(${sql.join(values)})`.execute(store.db);
      });
      results.push({
        table,
        rows: bulk.length,
        bulkRowsPerSecond: Math.round(bulkRowsPerSecond),
        aloneBulkRowsPerSecond: Math.round(aloneBulkRowsPerSecond),
        single,
        aloneSingle,
        singleRate: options.singleRate,
        split,
      });
      psql(["-c", `DROP TABLE ${bare}`]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await removeWrittenRows(store);
  }
  return results;
}
