import { randomBytes } from "node:crypto";
import pg from "pg";
import {
  closeForCopying,
  copyCitusDatabase,
  createCitusDatabase,
  dropCitusDatabase,
} from "../../scripts/citus-database.js";
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

/**
 * The run's PostgreSQL template (test/global-setup.ts makes it): a migrated empty database that
 * `createPostgresDatabase({ migrated: true })` copies, in about 0.1 s instead of the 0.7 s that migrating a new one
 * takes on a busy CI machine; on Citus, a copy on each node in 0.7 s instead of 8 s to create and migrate one.
 */
export const postgresTemplate: string | undefined = process.env.TEST_POSTGRES_TEMPLATE || undefined;

/** Runs `statement` (one or more, as one query) on the database at `adminUrl`, over a connection of its own. */
export async function onAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A new database on the TEST_DATABASE_URL server (on each node of a Citus cluster), and a function that drops it.
 * Empty unless `migrated`, which lets a plain server copy the run's migrated template (the store's migrations then find
 * nothing to do); a test about how a database is created or migrated asks for an empty one.
 */
export async function createPostgresDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const workers = process.env.TEST_CITUS_WORKERS;
  if (workers) {
    // Four shards a table: as many as the tests need to spread environments over both workers, cheap to make.
    const url =
      options.migrated && postgresTemplate
        ? await copyCitusDatabase(adminUrl, workers, postgresTemplate, name, { shardCount: 4 })
        : await createCitusDatabase(adminUrl, workers, name, { shardCount: 4 });
    return { url, drop: () => dropCitusDatabase(adminUrl, workers, name) };
  }
  const template = options.migrated && postgresTemplate ? ` TEMPLATE ${postgresTemplate}` : "";
  await onAdmin(adminUrl, `CREATE DATABASE ${name}${template}`);
  return {
    url: databaseUrl(adminUrl, name),
    drop: () => onAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * Makes the run's migrated template on the TEST_DATABASE_URL server (test/global-setup.ts), on each node of a Citus
 * cluster when TEST_CITUS_WORKERS names its workers: a new database that the store's migrations run on, closed again so
 * that CREATE DATABASE … TEMPLATE can copy it. Returns its name and how to drop it.
 */
export async function createPostgresTemplate(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `test_template_${randomBytes(6).toString("hex")}`;
  const workers = process.env.TEST_CITUS_WORKERS;
  if (workers) await createCitusDatabase(adminUrl, workers, name, { shardCount: 4 });
  else await onAdmin(adminUrl, `CREATE DATABASE ${name}`);
  const url = databaseUrl(adminUrl, name);
  const migrated = await openStore({ databaseUrl: url, poolSize: 1, totalCountCap: 50_000 });
  await migrated.close();
  if (!workers) return { name, drop: () => onAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  await closeForCopying(adminUrl, workers, name);
  return { name, drop: () => dropCitusDatabase(adminUrl, workers, name) };
}

/** Empty stores on one driver, each opened when a test asks; `closeAll` closes them and drops their databases. */
export function emptyStores(driver: "pglite" | "postgres"): { fresh(): Promise<Store>; closeAll(): Promise<void> } {
  const opened: OpenedStore[] = [];
  const drops: (() => Promise<void>)[] = [];
  return {
    async fresh() {
      const database = driver === "postgres" ? await createPostgresDatabase({ migrated: true }) : undefined;
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
