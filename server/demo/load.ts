import {
  insertBatchStatement,
  insertWorkflows,
  notificationBatchText,
  subscriberBatchText,
} from "../store/bulk-insert.js";
import { withForeignKeysCheckedAfter } from "../store/foreign-key-checks.js";
import { withCountsRecountedAfter } from "../store/kept-counts.js";
import { analyzeLoadedTables } from "../store/statistics.js";
import type { Store } from "../store/store.js";
import {
  type DemoEnvironment,
  type DemoEnvironmentHeader,
  type DemoEnvironmentStream,
  type DemoOptions,
  demoEnvironments,
  generateDemoData,
  notificationWindowDays,
} from "./generate.js";

export interface LoadProgress {
  table: "subscribers" | "notifications";
  /** Rows of this table written so far, over every environment. */
  done: number;
  total: number;
}

/** Rows per INSERT statement, unless a load is told otherwise (`npm run bench:data -- --batch-size N`). */
export const defaultBatchSize = 2000;

export interface LoadOptions {
  /** Rows per INSERT statement (`defaultBatchSize`). */
  batchSize?: number;
  onProgress?: (progress: LoadProgress) => void;
  /**
   * Whether to analyze the tables once written (default true: PGlite has no autovacuum, server/store/statistics.ts).
   * `npm run bench:data` analyzes after it has rebuilt the indexes it dropped.
   */
  analyze?: boolean;
  /**
   * Where the batches come from: by default built here, on this thread, from the generator (`preparedBatches`).
   * `npm run bench:data` builds them on a worker thread (bench/batch-worker.ts), the same batches in the same order.
   */
  prepare?: (demo: DemoOptions, batchSize: number) => AsyncIterable<PreparedBatch>;
}

/** A batch ready to write: one table's rows as the text the bulk insert sends (server/store/bulk-insert.ts). */
export interface PreparedBatch {
  table: LoadProgress["table"];
  rows: number;
  text: string;
}

type Source = DemoEnvironmentHeader & {
  subscribers: () => Iterable<DemoEnvironment["subscribers"][number]>;
  notifications: () => Iterable<DemoEnvironment["notifications"][number]>;
};

export function* batches<T>(rows: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The environments' rows in the order a load writes them (every subscriber, then every notification), as batches. */
export function* preparedBatches(sources: readonly Source[], size: number): Generator<PreparedBatch> {
  for (const source of sources)
    for (const batch of batches(source.subscribers(), size))
      yield { table: "subscribers", rows: batch.length, text: subscriberBatchText(batch) };
  for (const source of sources)
    for (const batch of batches(source.notifications(), size))
      yield { table: "notifications", rows: batch.length, text: notificationBatchText(batch) };
}

/**
 * Writes batches while the next ones are being built: two batches wait at the connection (node-postgres sends a
 * connection's statements one after the other), so that the database starts the next one as soon as it has written
 * one, while this process builds the one after. With one, each side waited for the other once per batch. Memory stays
 * flat: at most two batches are held besides the one being built.
 */
export async function writeOverlapped<T>(
  batches: Iterable<T> | AsyncIterable<T>,
  write: (batch: T) => Promise<void>,
): Promise<void> {
  const waiting: Promise<void>[] = [];
  for await (const batch of batches) {
    if (waiting.length === 2) await waiting.shift();
    const pending = write(batch);
    // Marked as handled here; the failure is thrown when it is awaited.
    pending.catch(() => {});
    waiting.push(pending);
    // Let the statement reach the database before the generator takes the thread again.
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (const pending of waiting) await pending;
}

/** Writes environments, their fixed keys, workflows, subscribers and notifications in one transaction. */
async function write(
  store: Store,
  sources: Source[],
  anchor: Date,
  prepared: Iterable<PreparedBatch> | AsyncIterable<PreparedBatch>,
  options: LoadOptions,
): Promise<void> {
  const totals = {
    subscribers: sources.reduce((sum, source) => sum + source.subscriberCount, 0),
    notifications: sources.reduce((sum, source) => sum + source.notificationCount, 0),
  };
  const done = { subscribers: 0, notifications: 0 };
  const progress = (table: LoadProgress["table"], rows: number) => {
    done[table] += rows;
    options.onProgress?.({ table, done: done[table], total: totals[table] });
  };
  // One transaction, with the kept counts recounted once at the end rather than kept batch by batch (kept-counts.ts)
  // and the foreign keys checked once rather than row by row (foreign-key-checks.ts).
  await store.transaction((tx) =>
    withForeignKeysCheckedAfter(tx.db, ["subscribers", "notifications"], () =>
      withCountsRecountedAfter(tx.db, () => writeRows(tx)),
    ),
  );
  if (options.analyze ?? true) await analyzeLoadedTables(store.db);
  async function writeRows(tx: Store): Promise<void> {
    for (const source of sources) {
      const { environmentId, organizationId } = source;
      await tx.access.ensureEnvironment(source.name, { environmentId, organizationId });
      await tx.access.createApiKey(environmentId, source.apiKey);
      await insertWorkflows(tx.db, source.workflows);
    }
    // The months the notifications fall in need their partitions.
    await tx.partitions.ensure(new Date(anchor.getTime() - notificationWindowDays * 86_400_000), anchor);
    await writeOverlapped(prepared, async ({ table, rows, text }) => {
      await insertBatchStatement(table, text).execute(tx.db);
      progress(table, rows);
    });
  }
}

/** Generates and writes the demo data batch by batch (memory stays flat); returns the environments, without rows. */
export async function loadDemo(
  store: Store,
  demo: DemoOptions,
  options: LoadOptions = {},
): Promise<DemoEnvironmentStream[]> {
  const environments = demoEnvironments(demo);
  const size = options.batchSize ?? defaultBatchSize;
  const prepared = options.prepare ? options.prepare(demo, size) : preparedBatches(environments, size);
  await write(store, environments, demo.anchor, prepared, options);
  return environments;
}

/** Writes the demo data and returns it whole, rows included: for tests, which compare answers with it. */
export async function loadDemoData(store: Store, demo: DemoOptions): Promise<DemoEnvironment[]> {
  const environments = generateDemoData(demo);
  const sources = environments.map((environment) => ({
    ...environment,
    subscriberCount: environment.subscribers.length,
    notificationCount: environment.notifications.length,
    subscribers: () => environment.subscribers,
    notifications: () => environment.notifications,
  }));
  await write(store, sources, demo.anchor, preparedBatches(sources, defaultBatchSize), {});
  return environments;
}
