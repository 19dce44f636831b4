/**
 * The first step of a start: the store, opened on what the settings name (DATABASE_URL, DATA_DIR, or PGlite in
 * memory), with the demo data loaded into an empty one. An in-memory demo database runs on a throwaway copy of its
 * snapshot (server/demo/snapshot.ts), so that a start does not generate the data again.
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { type DemoOptions, defaultDemoOptions } from "../demo/options.js";
import { demoWorkingCopy } from "../demo/snapshot.js";
import { DataDirectoryInUse } from "../store/data-directory-lock.js";
import { makesNewDatabase } from "../store/pglite-open.js";
import { cachedPGliteTemplate, defaultTemplateDir } from "../store/pglite-template.js";
import { type OpenedStore, openStore, type Store } from "../store/store.js";
import { StartRefused } from "./demo-keys.js";

export interface OpenedDatabase {
  opened: OpenedStore;
  store: Store;
  /** Where the data is, in words for the banner. */
  location: string;
  demo: DemoOptions;
  /** Closes the store and removes a throwaway copy. */
  close(): Promise<void>;
}

/** Loads the demo data into an empty store. */
async function seedDemo(store: Store, demo: DemoOptions, logger: Logger): Promise<void> {
  // The generator (and faker) load only when there is data to generate.
  const { loadDemo } = await import("../demo/load.js");
  if (!(await store.isEmpty())) return;
  const started = Date.now();
  await loadDemo(store, demo);
  logger.info(
    { subscribers: demo.subscribers, notifications: demo.notifications, ms: Date.now() - started },
    "loaded demo data",
  );
}

export async function openDatabase(config: Config, logger: Logger): Promise<OpenedDatabase> {
  const demo = { ...defaultDemoOptions, subscribers: config.demoSubscribers, notifications: config.demoNotifications };
  // A new PGlite database (in memory, a new DATA_DIR, a demo snapshot being built) starts from the migrated template,
  // which is not looked for, or written, for a DATA_DIR that holds a database already.
  const pgliteTemplate =
    config.databaseUrl || !makesNewDatabase(config.dataDir)
      ? undefined
      : await cachedPGliteTemplate(defaultTemplateDir());
  const storeOptions = {
    pgliteTemplate,
    databaseUrl: config.databaseUrl,
    readDatabaseUrl: config.databaseReadUrl,
    dataDir: config.dataDir,
    poolSize: config.poolSize,
    statementTimeoutMs: config.statementTimeoutMs,
    preparedStatements: config.preparedStatements,
    pgliteThread: config.pgliteThread,
    totalCountCap: config.totalCountCap,
    onReconnected: (afterMs: number) => logger.warn({ afterMs }, "the database answers again"),
    // The first failure, then one a minute: the cause rarely changes between attempts a second apart.
    onReconnectFailed: (err: Error, attempt: number) => {
      if (attempt === 1 || attempt % 60 === 0)
        logger.warn({ err, attempt }, "the database could not be opened again yet");
    },
    onConnectionError: (err: Error) =>
      logger.warn({ err }, "lost a database connection: requests on it are answered 503 while it is opened again"),
  };
  const snapshotDir =
    config.seedDemoData && !config.databaseUrl && !config.dataDir ? config.demoSnapshotDir : undefined;
  const copy = snapshotDir
    ? await demoWorkingCopy(snapshotDir, demo, async (dataDir) => {
        const building = await openStore({ ...storeOptions, dataDir });
        await seedDemo(building.store, demo, logger);
        await building.close();
      })
    : undefined;
  // Deleted on every way out, process.exit() of the shutdown included.
  if (copy) process.once("exit", () => copy.remove());
  if (copy?.built) logger.info({ snapshotDir }, "saved a snapshot of the demo database: later starts copy it");
  // The next start's copy is made now, beside this start (the copying runs off the main thread).
  copy?.prepareSpare().catch((err) => logger.warn({ err }, "could not make a spare copy of the demo snapshot"));
  const opened = await openStore({ ...storeOptions, dataDir: copy?.dataDir ?? config.dataDir }).catch((error) => {
    throw error instanceof DataDirectoryInUse ? new StartRefused(error.message) : error;
  });
  if (!copy && config.seedDemoData) await seedDemo(opened.store, demo, logger);
  return {
    opened,
    store: opened.store,
    location: copy ? "PGlite in memory (a throwaway copy of the demo snapshot)" : opened.location,
    demo,
    async close() {
      await opened.close();
      copy?.remove();
    },
  };
}
