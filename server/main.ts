import type { AddressInfo } from "node:net";
import { createHttpServer } from "@novu-query/express";
import pino, { type Logger } from "pino";
import { createServerApp } from "./app.js";
import type { Config } from "./config.js";
import { type DemoOptions, defaultDemoOptions, publicDemoKeys } from "./demo/options.js";
import { demoWorkingCopy } from "./demo/snapshot.js";
import { handlers } from "./handlers/index.js";
import { mergeGramIndexesEvery } from "./store/gram-index-merges.js";
import { openStore, type Store } from "./store/store.js";

/** Loads the demo data into an empty store. */
async function seedDemo(store: Store, demo: DemoOptions, logger: Logger): Promise<void> {
  // The generator (and faker) load only when there is data to generate.
  const { loadDemo } = await import("./demo/load.js");
  if (!(await store.isEmpty())) return;
  const started = Date.now();
  await loadDemo(store, demo);
  logger.info(
    { subscribers: demo.subscribers, notifications: demo.notifications, ms: Date.now() - started },
    "loaded demo data",
  );
}

/** Why a start was refused, in words for the operator (the command prints the message alone). */
export class StartRefused extends Error {
  override name = "StartRefused";
}

/**
 * In production, the public demo keys (derivable by anyone from this repository) must not open the store: the start
 * is refused unless ALLOW_DEMO_KEYS says this is a public demo; with it, a loud warning.
 */
async function refusePublicDemoKeys(store: Store, config: Config, logger: Logger, close: () => Promise<void>) {
  if (!config.production) return;
  const present: string[] = [];
  for (const { name, key } of publicDemoKeys()) {
    if (await store.access.environmentForKey(key)) present.push(name);
  }
  if (present.length === 0) return;
  if (config.allowDemoKeys) {
    logger.warn(
      { environments: present },
      "NODE_ENV=production with the public demo keys: anyone can read and change these environments (ALLOW_DEMO_KEYS=true)",
    );
    return;
  }
  await close();
  throw new StartRefused(
    `Refusing to start with NODE_ENV=production: the database holds the public demo API keys of ${present.join(" and ")}, ` +
      "which anyone can derive from the source. Remove them with `novu-query-server keys revoke-demo` (then create " +
      "your own with `keys create`), or set ALLOW_DEMO_KEYS=true if this is a public demo.",
  );
}

/**
 * Runs the reference server until SIGTERM or SIGINT: opens the store, loads the demo data into an empty one, listens,
 * and prints the URLs and the demo keys.
 */
export async function runServer(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const demoOptions = {
    ...defaultDemoOptions,
    subscribers: config.demoSubscribers,
    notifications: config.demoNotifications,
  };
  // An in-memory demo database runs on a throwaway copy of its snapshot (server/demo/snapshot.ts).
  const storeOptions = {
    databaseUrl: config.databaseUrl,
    readDatabaseUrl: config.databaseReadUrl,
    dataDir: config.dataDir,
    poolSize: config.poolSize,
    statementTimeoutMs: config.statementTimeoutMs,
    preparedStatements: config.preparedStatements,
    pgliteThread: config.pgliteThread,
    totalCountCap: config.totalCountCap,
    onIdleConnectionError: (err: Error) =>
      logger.warn({ err }, "an idle database connection was closed; it will be reopened"),
  };
  const snapshotDir =
    config.seedDemoData && !config.databaseUrl && !config.dataDir ? config.demoSnapshotDir : undefined;
  const copy = snapshotDir
    ? await demoWorkingCopy(snapshotDir, demoOptions, async (dataDir) => {
        const building = await openStore({ ...storeOptions, dataDir });
        await seedDemo(building.store, demoOptions, logger);
        await building.close();
      })
    : undefined;
  // Deleted on every way out, process.exit() of the shutdown below included.
  if (copy) process.once("exit", () => copy.remove());
  if (copy?.built) logger.info({ snapshotDir }, "saved a snapshot of the demo database: later starts copy it");
  // The next start's copy is made now, beside this start (the copying runs off the main thread).
  copy?.prepareSpare().catch((err) => logger.warn({ err }, "could not make a spare copy of the demo snapshot"));
  const opened = await openStore({ ...storeOptions, dataDir: copy?.dataDir ?? config.dataDir });
  const { store } = opened;
  const location = copy ? "PGlite in memory (a throwaway copy of the demo snapshot)" : opened.location;
  if (!copy && config.seedDemoData) await seedDemo(store, demoOptions, logger);
  await refusePublicDemoKeys(store, config, logger, async () => {
    await opened.close();
    copy?.remove();
  });

  // Housekeeping, now and every ten minutes: expired idempotency records, notification partitions for the months
  // ahead, and (with PURGE_AFTER_DAYS) the months that have fallen out of retention.
  const cleanup = async () => {
    const deleted = await store.idempotency.deleteExpired();
    if (deleted > 0) logger.info({ deleted }, "deleted expired idempotency records");
    const now = new Date();
    const created = await store.partitions.ensureAround(now);
    if (created > 0) logger.info({ created }, "created notification partitions");
    if (config.purgeAfterDays !== undefined) {
      const dropped = await store.partitions.dropBefore(new Date(now.getTime() - config.purgeAfterDays * 86_400_000));
      if (dropped.length > 0) logger.info({ dropped }, "dropped notification partitions past PURGE_AFTER_DAYS");
    }
  };
  await cleanup();
  const cleanupTimer = setInterval(
    () => cleanup().catch((err) => logger.error({ err }, "housekeeping failed")),
    600_000,
  );
  cleanupTimer.unref();
  // PostgreSQL: PATCHes' grams merged into the gram indexes a few times a second rather than inside a request
  // (server/store/gram-index-merges.ts). PGlite runs on this thread either way.
  const gramMerges =
    opened.driver === "postgres"
      ? mergeGramIndexesEvery(store.db, config.gramMergeIntervalMs, (err) =>
          logger.warn({ err }, "stopped merging the gram indexes' pending entries (GRAM_MERGE_INTERVAL_MS)"),
        )
      : undefined;

  const app = createServerApp({ store, handlers, logger, config });
  const server = createHttpServer(app, config, logger).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`;

  const demoKeys: { name: string; key: string }[] = [];
  let exampleSubscriberId: string | undefined;
  for (const { name, key } of publicDemoKeys(demoOptions.seed)) {
    const environment = await store.access.environmentForKey(key);
    if (!environment) continue;
    demoKeys.push({ name, key });
    if (exampleSubscriberId === undefined) {
      const search = { limit: 1, orderBy: "_id", orderDirection: "ASC", includeCursor: false } as const;
      exampleSubscriberId = (await store.subscribers.search(environment.environmentId, search)).data[0]?.subscriberId;
    }
  }
  const origins = config.corsOrigins.includes("*")
    ? "any (CORS for every origin)"
    : config.corsOrigins.length > 0
      ? config.corsOrigins.join(", ")
      : "none: no CORS headers (set CORS_ORIGINS to call the API from a page on another origin)";
  const lines = [
    "",
    `Notification query API (reference server) on ${location}`,
    `  API        ${base}`,
    `  Docs       ${base}/docs`,
    `  Spec       ${base}/openapi.json`,
    `  Origins    ${origins}`,
    ...(demoKeys.length
      ? [
          "Demo API keys (send as `Authorization: ApiKey <key>`):",
          ...demoKeys.map(({ name, key }) => `  ${name.padEnd(12)} ${key}`),
        ]
      : []),
    ...(demoKeys[0]
      ? [
          "Try:",
          `  curl -H "Authorization: ApiKey ${demoKeys[0].key}" "${base}/v1/notifications?limit=2"`,
          ...(exampleSubscriberId
            ? [
                `  curl -X PATCH -H "Authorization: ApiKey ${demoKeys[0].key}" -H "Content-Type: application/json" \\`,
                `    -d '{"locale":"en_US"}' "${base}/v2/subscribers/${exampleSubscriberId}"`,
              ]
            : []),
        ]
      : []),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing requests in flight");
    const force = setTimeout(() => {
      logger.warn("requests still in flight after 10 s; closing anyway");
      server.closeAllConnections();
    }, 10_000);
    force.unref();
    // Connections that finish their request while we drain go idle; close them as they do.
    const drain = setInterval(() => server.closeIdleConnections(), 50);
    server.close(async () => {
      clearInterval(drain);
      clearInterval(cleanupTimer);
      await gramMerges?.stop();
      await opened.close();
      logger.info("stopped");
      process.exit(0);
    });
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
