import { randomBytes } from "node:crypto";
import pg from "pg";
import { createCitusDatabase, dropCitusDatabase } from "../../scripts/citus-database.js";
import { type OpenedStore, openStore, type Store } from "../../server/store/store.js";

/** Whether the PostgreSQL of this run is a Citus cluster. */
export const onCitus = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_CITUS_WORKERS);

/**
 * PGlite always; PostgreSQL too when TEST_DATABASE_URL names a server (`.ci/run` starts one). With CITUS=on that server
 * is a Citus coordinator, whose workers TEST_CITUS_WORKERS names (test/global-setup.ts starts the three), and the
 * suites run on it alone: `npm test` has run them on PGlite already.
 */
export const drivers: ("pglite" | "postgres")[] = onCitus
  ? ["postgres"]
  : process.env.TEST_DATABASE_URL
    ? ["pglite", "postgres"]
    : ["pglite"];

/**
 * The run's PGlite template (test/global-setup.ts writes it): a migrated empty database that a test's in-memory PGlite
 * starts from, unless the test is about how a database is created or migrated.
 */
export const pgliteTemplate: string | undefined = process.env.TEST_PGLITE_TEMPLATE || undefined;

/** A new, empty database on the TEST_DATABASE_URL server (on each node of a Citus cluster), and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const workers = process.env.TEST_CITUS_WORKERS;
  if (workers) {
    // Four shards a table: as many as the tests need to spread environments over both workers, cheap to make.
    const url = await createCitusDatabase(adminUrl, workers, name, { shardCount: 4 });
    return { url, drop: () => dropCitusDatabase(adminUrl, workers, name) };
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Empty stores on one driver, each opened when a test asks; `closeAll` closes them and drops their databases. */
export function emptyStores(driver: "pglite" | "postgres"): { fresh(): Promise<Store>; closeAll(): Promise<void> } {
  const opened: OpenedStore[] = [];
  const drops: (() => Promise<void>)[] = [];
  return {
    async fresh() {
      const database = driver === "postgres" ? await createPostgresDatabase() : undefined;
      if (database) drops.push(database.drop);
      const store = await openStore({ databaseUrl: database?.url, pgliteTemplate, totalCountCap: 50_000 });
      opened.push(store);
      return store.store;
    },
    async closeAll() {
      for (const store of opened) await store.close();
      for (const drop of drops) await drop();
    },
  };
}
