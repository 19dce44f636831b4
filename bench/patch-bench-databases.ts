/**
 * What the PATCH benchmarks (`bench:names`, `bench:patches`) share: a scratch database on PostgreSQL and on Citus,
 * made for one run and dropped after it, the demo subscribers loaded into it, and a PATCH run as the server runs one.
 */
import { execFileSync } from "node:child_process";
import pg from "pg";
import { createCitusDatabase, dropCitusDatabase } from "../scripts/citus-database.js";
import { loadDemo } from "../server/demo/load.js";
import { defaultDemoOptions } from "../server/demo/options.js";
import { type OpenedStore, openStore } from "../server/store/store.js";
import { benchDatabaseUrl } from "./database.js";

/** The store options of every scratch database: a count cap of the benchmarks' size and a pool of `connections`. */
const storeOptions = (connections: number) => ({ totalCountCap: 50_000, poolSize: connections });

/**
 * Runs `use` on a new database `name` of the private cluster (or BENCH_DATABASE_URL's server, or `server`'s when given:
 * a database URL whose server to use), migrated by the store and dropped after it, even when `use` or the migrations
 * fail; `use` also gets a connection to the server's admin database (which a benchmark may sample backends with) and
 * the new database's URL.
 */
export async function withScratchPostgres<T>(
  name: string,
  connections: number,
  use: (store: OpenedStore, admin: pg.Client, url: string) => Promise<T>,
  server?: string,
): Promise<T> {
  const base = new URL(await benchDatabaseUrl(server ?? process.env.BENCH_DATABASE_URL));
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(base);
      url.pathname = `/${name}`;
      const store = await openStore({ databaseUrl: url.toString(), ...storeOptions(connections) });
      try {
        return await use(store, admin, url.toString());
      } finally {
        await store.close();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

/**
 * Runs `use` on a new database `name` of a Citus cluster on this machine (scripts/citus.sh: a coordinator and two
 * workers), dropped after it; undefined, without running it, when no Citus source is at hand.
 */
export async function withScratchCitus<T>(
  name: string,
  connections: number,
  use: (store: OpenedStore, cluster: { url: string; workers: string }) => Promise<T>,
): Promise<T | undefined> {
  try {
    execFileSync("scripts/citus.sh", ["source"], { stdio: "pipe" });
  } catch {
    return undefined;
  }
  const coordinator = execFileSync("scripts/citus.sh", ["start"], { encoding: "utf8" })
    .trim()
    .split("\n")
    .at(-1) as string;
  const workers = execFileSync("scripts/citus.sh", ["workers"], { encoding: "utf8" }).trim();
  await dropCitusDatabase(coordinator, workers, name);
  const url = await createCitusDatabase(coordinator, workers, name);
  const store = await openStore({ databaseUrl: url, ...storeOptions(connections) });
  try {
    return await use(store, { url, workers });
  } finally {
    await store.close();
    await dropCitusDatabase(coordinator, workers, name);
  }
}

/** Loads `subscribers` demo subscribers (no notifications); returns the Production environment and its live ones. */
export async function loadPatchTargets(
  store: OpenedStore,
  subscribers: number,
): Promise<{ environmentId: string; subscriberIds: string[] }> {
  await loadDemo(store.store, { ...defaultDemoOptions, subscribers, notifications: 0 });
  const environment = await store.store.db
    .selectFrom("environments")
    .select("id")
    .where("name", "=", "Production")
    .executeTakeFirstOrThrow();
  const ids = await store.store.db
    .selectFrom("subscribers")
    .select("subscriber_id")
    .where("environment_id", "=", environment.id)
    .where("deleted", "=", false)
    .execute();
  return { environmentId: environment.id, subscriberIds: ids.map((row) => row.subscriber_id) };
}
