import { insertNotifications, insertSubscribers, insertWorkflows } from "../store/bulk-insert.js";
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

export interface LoadOptions {
  /** Rows per INSERT statement. */
  batchSize?: number;
  onProgress?: (progress: LoadProgress) => void;
  /**
   * Whether to analyze the tables once written (default true: PGlite has no autovacuum, server/store/statistics.ts).
   * `npm run bench:data` analyzes after it has rebuilt the indexes it dropped.
   */
  analyze?: boolean;
}

type Source = DemoEnvironmentHeader & {
  subscribers: () => Iterable<DemoEnvironment["subscribers"][number]>;
  notifications: () => Iterable<DemoEnvironment["notifications"][number]>;
};

function* batches<T>(rows: Iterable<T>, size: number): Generator<T[]> {
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

/**
 * Writes batches while the next ones are being generated: two batches wait at the connection (node-postgres sends a
 * connection's statements one after the other), so that the database starts the next one as soon as it has written
 * one, while this process builds the one after. With one, each side waited for the other once per batch. Memory stays
 * flat: at most two batches are held besides the one being built.
 */
export async function writeOverlapped<T>(rows: Iterable<T>, size: number, write: (batch: T[]) => Promise<void>) {
  const waiting: Promise<void>[] = [];
  for (const batch of batches(rows, size)) {
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
async function write(store: Store, sources: Source[], anchor: Date, options: LoadOptions): Promise<void> {
  const size = options.batchSize ?? 2000;
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
    for (const source of sources) {
      await writeOverlapped(source.subscribers(), size, async (batch) => {
        await insertSubscribers(tx.db, batch);
        progress("subscribers", batch.length);
      });
    }
    // The months the notifications fall in need their partitions.
    await tx.partitions.ensure(new Date(anchor.getTime() - notificationWindowDays * 86_400_000), anchor);
    for (const source of sources) {
      await writeOverlapped(source.notifications(), size, async (batch) => {
        await insertNotifications(tx.db, batch);
        progress("notifications", batch.length);
      });
    }
  }
}

/** Generates and writes the demo data batch by batch (memory stays flat); returns the environments, without rows. */
export async function loadDemo(
  store: Store,
  demo: DemoOptions,
  options: LoadOptions = {},
): Promise<DemoEnvironmentStream[]> {
  const environments = demoEnvironments(demo);
  await write(store, environments, demo.anchor, options);
  return environments;
}

/** Writes the demo data and returns it whole, rows included: for tests, which compare answers with it. */
export async function loadDemoData(store: Store, demo: DemoOptions): Promise<DemoEnvironment[]> {
  const environments = generateDemoData(demo);
  await write(
    store,
    environments.map((environment) => ({
      ...environment,
      subscriberCount: environment.subscribers.length,
      notificationCount: environment.notifications.length,
      subscribers: () => environment.subscribers,
      notifications: () => environment.notifications,
    })),
    demo.anchor,
    {},
  );
  return environments;
}
