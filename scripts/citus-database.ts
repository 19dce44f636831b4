/**
 * A database on a Citus cluster (scripts/citus.sh): Citus keeps its metadata per database, so a new one is made on the
 * coordinator and on each worker, with the extension in each and the workers added to the coordinator's. The tests make
 * one per test file, as they make a plain one on PostgreSQL; `shardCount` keeps those small.
 */
import pg from "pg";

interface Node {
  host: string;
  port: number;
}

/** host:port,host:port, as `scripts/citus.sh workers` prints them. */
export function parseWorkers(workers: string): Node[] {
  return workers.split(",").map((worker) => {
    const [host, port] = worker.trim().split(":");
    return { host: host as string, port: Number(port) };
  });
}

/** `base` with another host, port and database. */
export function urlOf(base: string, host: string, port: number, database: string): string {
  const url = new URL(base);
  url.hostname = host;
  url.port = String(port);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The coordinator (first) and the workers, where a database of the cluster must be made and dropped. */
function clusterNodes(coordinatorUrl: string, workers: string): [Node, ...Node[]] {
  const coordinator = new URL(coordinatorUrl);
  return [{ host: coordinator.hostname, port: Number(coordinator.port) }, ...parseWorkers(workers)];
}

async function run(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET client_min_messages = warning");
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createCitusDatabase(
  coordinatorUrl: string,
  workers: string,
  name: string,
  options: { shardCount?: number } = {},
): Promise<string> {
  const nodes = clusterNodes(coordinatorUrl, workers);
  const [coordinator, ...workerNodes] = nodes;
  for (const node of nodes) {
    await run(urlOf(coordinatorUrl, node.host, node.port, "postgres"), [`CREATE DATABASE ${name}`]);
    await run(urlOf(coordinatorUrl, node.host, node.port, name), ["CREATE EXTENSION citus"]);
  }
  const url = urlOf(coordinatorUrl, coordinator.host, coordinator.port, name);
  await oneAtATime(urlOf(coordinatorUrl, coordinator.host, coordinator.port, "postgres"), () =>
    run(url, [
      `SELECT citus_set_coordinator_host('${coordinator.host}', ${coordinator.port})`,
      ...workerNodes.map((worker) => `SELECT citus_add_node('${worker.host}', ${worker.port})`),
      ...(options.shardCount ? [`ALTER DATABASE ${name} SET citus.shard_count = ${options.shardCount}`] : []),
    ]),
  );
  return url;
}

// Any fixed number: the lock that databases of one cluster join their workers under.
const addNodeLock = 724_511_002;

/**
 * Runs `work` while holding a lock in the coordinator's `postgres` database. `citus_add_node` copies the roles to the
 * worker (ALTER ROLE, in a catalog all of the worker's databases share): two databases joining at once, as test files
 * starting together do, fail with "tuple concurrently updated" ("failure on connection marked as essential" on the
 * coordinator). Advisory locks are per database, so the lock is taken in one that every process shares.
 */
async function oneAtATime(adminUrl: string, work: () => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [addNodeLock]);
    await work();
  } finally {
    await admin.end();
  }
}

export async function dropCitusDatabase(coordinatorUrl: string, workers: string, name: string): Promise<void> {
  for (const node of clusterNodes(coordinatorUrl, workers)) {
    const admin = urlOf(coordinatorUrl, node.host, node.port, "postgres");
    // Citus's maintenance daemon, a background worker that FORCE does not end, may be connecting to it again.
    for (let attempt = 1; ; attempt++) {
      try {
        await run(admin, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
        break;
      } catch (error) {
        if (attempt === 10 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}

/**
 * Readies a migrated database of the cluster to be copied (`copyCitusDatabase`): on every node, no new connections
 * and none left (the coordinator's cached ones to the workers and the maintenance daemon, which Citus would start
 * again on the next connection), as CREATE DATABASE … TEMPLATE needs.
 */
export async function closeForCopying(coordinatorUrl: string, workers: string, name: string): Promise<void> {
  for (const node of clusterNodes(coordinatorUrl, workers)) {
    await run(urlOf(coordinatorUrl, node.host, node.port, "postgres"), [
      `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
    ]);
  }
}

/**
 * A copy of a database that `closeForCopying` readied, made node by node: each node's copy holds that node's part
 * (the coordinator's metadata, a worker's shards), and Citus finds the workers by the database's own name, so the
 * copies make a cluster database as `createCitusDatabase` and the migrations would (well under a second, against
 * several on a busy machine). Database settings are not copied: `shardCount` is set again, on the coordinator.
 */
export async function copyCitusDatabase(
  coordinatorUrl: string,
  workers: string,
  template: string,
  name: string,
  options: { shardCount?: number } = {},
): Promise<string> {
  const nodes = clusterNodes(coordinatorUrl, workers);
  for (const node of nodes)
    await run(urlOf(coordinatorUrl, node.host, node.port, "postgres"), [
      `CREATE DATABASE ${name} TEMPLATE ${template}`,
    ]);
  const [coordinator] = nodes;
  if (options.shardCount)
    await run(urlOf(coordinatorUrl, coordinator.host, coordinator.port, "postgres"), [
      `ALTER DATABASE ${name} SET citus.shard_count = ${options.shardCount}`,
    ]);
  return urlOf(coordinatorUrl, coordinator.host, coordinator.port, name);
}
