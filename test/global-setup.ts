/**
 * Runs once before the test files. Unless TEST_DATABASE_URL names a PostgreSQL server already, starts a private
 * cluster with scripts/postgres.sh (when PostgreSQL server binaries are installed) so that every store and HTTP test
 * runs on PostgreSQL as well as PGlite, and a streaming read replica of it (TEST_REPLICA_URL). CI (CI=true) insists
 * on PostgreSQL. TEST_POSTGRES=off skips it. With CITUS=on, that PostgreSQL is a Citus cluster of a coordinator and
 * two workers (scripts/citus.sh; TEST_CITUS_WORKERS names the workers), with no replica. Also names the folder of the
 * run's packed tarballs (test/support/tarballs.ts) and removes it afterwards. Names the PGlite template (a migrated
 * empty database, ConnectOptions.pgliteTemplate: the server's cached one) that the test stores in memory start from:
 * initdb and the migrations once per set of migrations instead of once per database (about 2 s of CPU each). On
 * PostgreSQL and Citus, makes the like of it (TEST_POSTGRES_TEMPLATE, test/support/databases.ts): a migrated database
 * that the test servers' and stores' databases are copied from. Runs once however many vitest projects name it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cachedPGliteTemplate, defaultTemplateDir, writePGliteTemplate } from "../server/store/pglite-template.js";
import { createPostgresTemplate } from "./support/databases.js";
import { removeTarballs } from "./support/tarballs.js";

const script = fileURLToPath(new URL("../scripts/postgres.sh", import.meta.url));
const citus = fileURLToPath(new URL("../scripts/citus.sh", import.meta.url));

function postgresInstalled(): boolean {
  return existsSync("/usr/lib/postgresql") && readdirSync("/usr/lib/postgresql").length > 0;
}

/** Starts the private PostgreSQL cluster and its replica unless told not to; returns how to stop them. */
function startPostgres(): (() => void) | undefined {
  if (process.env.TEST_DATABASE_URL || process.env.TEST_POSTGRES === "off") return undefined;
  if (!postgresInstalled()) {
    if (process.env.CI)
      throw new Error("CI runs every test on PostgreSQL too, but no PostgreSQL server binaries are installed");
    console.warn("PostgreSQL server binaries not found: running the store and HTTP tests on PGlite only.");
    return undefined;
  }
  if (process.env.CITUS === "on") return startCitus();
  // A cluster someone started before the run (for the benchmark, say) keeps running after it.
  const wasRunning = spawnSync(script, ["status"]).status === 0;
  process.env.TEST_DATABASE_URL = execFileSync(script, ["start"], { encoding: "utf8" }).trim();
  // A fresh streaming replica of that cluster, for the read-replica tests (test/scale/replica.test.ts).
  process.env.TEST_REPLICA_URL = execFileSync(script, ["replica-reset"], { encoding: "utf8" }).trim();
  return () => {
    execFileSync(script, ["replica-stop"]);
    if (!wasRunning) execFileSync(script, ["stop"]);
  };
}

/** A Citus coordinator and two workers instead of the plain cluster; returns how to stop them. */
function startCitus(): () => void {
  const wasRunning = spawnSync(citus, ["status"]).status === 0;
  process.env.TEST_DATABASE_URL = execFileSync(citus, ["start"], { encoding: "utf8" }).trim().split("\n").at(-1);
  process.env.TEST_CITUS_WORKERS = execFileSync(citus, ["workers"], { encoding: "utf8" }).trim();
  return () => {
    if (!wasRunning) execFileSync(citus, ["stop"]);
  };
}

/**
 * Each vitest project names this setup (vitest.config.ts), and vitest runs it once per project in its own process:
 * the first call starts everything, the others share it, and the last teardown stops it.
 */
interface Shared {
  started: Promise<() => Promise<void>>;
  users: number;
}
// On globalThis, since each project may load this module apart.
const registry = globalThis as typeof globalThis & { novuQueryTestSetup?: Shared };

export default async function setup(): Promise<() => Promise<void>> {
  registry.novuQueryTestSetup ??= { started: start(), users: 0 };
  const shared = registry.novuQueryTestSetup;
  shared.users += 1;
  const teardown = await shared.started;
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry.novuQueryTestSetup;
    await teardown();
  };
}

async function start(): Promise<() => Promise<void>> {
  process.env.NOVU_QUERY_TARBALLS = join(tmpdir(), `novu-query-tarballs-${process.pid}-${Date.now()}`);
  // The server's cached one (written once per set of migrations); the run's own where it cannot be written.
  const templateDir = mkdtempSync(join(tmpdir(), "novu-query-pglite-template-"));
  const cached = await cachedPGliteTemplate(defaultTemplateDir());
  process.env.TEST_PGLITE_TEMPLATE = cached ?? join(templateDir, "migrated.tar");
  if (!cached) await writePGliteTemplate(process.env.TEST_PGLITE_TEMPLATE);
  const stopPostgres = startPostgres();
  // On PostgreSQL, the same once per run: a migrated template the test databases copy (on Citus, one on each node).
  const adminUrl = process.env.TEST_DATABASE_URL;
  const postgresTemplate = adminUrl ? await createPostgresTemplate(adminUrl) : undefined;
  if (postgresTemplate) process.env.TEST_POSTGRES_TEMPLATE = postgresTemplate.name;
  return async () => {
    removeTarballs();
    rmSync(templateDir, { recursive: true, force: true });
    await postgresTemplate?.drop();
    stopPostgres?.();
  };
}
