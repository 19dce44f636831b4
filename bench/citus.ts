/**
 * The reference server on Citus (a coordinator and two workers, scripts/citus.sh) beside single-node PostgreSQL, on the
 * same data on the same machine, side by side in one run: every store-level query shape, the four operations' closed
 * loop throughput over HTTP, and the database CPU each request costs, the Citus coordinator's apart from its workers'
 * (what the estimate of throughput per added worker in RESULTS.md is computed from).
 *   npm run bench:citus -- [--subscribers 200000] [--notifications 200000] [--iterations 100] [--seconds 5]
 *                          [--repetitions 3] [--quick]
 * Loads the data into a database of each (bench/data.ts, once: a second run reuses it), writes
 * bench/results/citus-<date>.json and re-renders bench/RESULTS.md from the latest full run with it; `npm run bench`
 * measures it too where the Citus source is at hand.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import pg from "pg";
import { createCitusDatabase, dropCitusDatabase } from "../scripts/citus-database.js";
import { startServerProcess } from "../scripts/processes.js";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { openStore, type Store } from "../server/store/store.js";
import { benchServerEnv } from "./benchmarked-server.js";
import { benchContext } from "./context.js";
import { serverCpuMs } from "./cpu.js";
import { fillAllAnswers } from "./database.js";
import { type CitusComparison, latestSection, rerenderResults } from "./report.js";
import { benchShapes, type HttpRequest, shapeById } from "./shapes.js";
import { median, summarize } from "./stats.js";
import { closedLoop } from "./throughput.js";

const databaseName = "novu_bench_citus";

function run(command: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync(command, args, {
    encoding: "utf8",
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
}

interface Clusters {
  /** The admin URLs (database `postgres`) of the plain cluster and of the Citus coordinator, and the Citus workers. */
  plain: string;
  coordinator: string;
  workers: string;
}

function clusters(): Clusters {
  return {
    plain: run("scripts/postgres.sh", ["start"]).trim(),
    coordinator: run("scripts/citus.sh", ["start"]).trim().split("\n").at(-1) as string,
    workers: run("scripts/citus.sh", ["workers"]).trim(),
  };
}

const withName = (url: string) => Object.assign(new URL(url), { pathname: `/${databaseName}` }).toString();

async function query(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Whether the database holds exactly this much bench data already (a second run reuses it). */
async function holds(admin: string, subscribers: number, notifications: number): Promise<boolean> {
  const exists = await query(admin, "SELECT 1 FROM pg_database WHERE datname = $1", [databaseName]);
  if (!exists.rowCount) return false;
  const counted = await query(
    withName(admin),
    `SELECT (SELECT count(*)::int FROM subscribers) AS subscribers, (SELECT count(*)::int FROM notifications) AS notifications`,
  ).catch(() => undefined);
  const row = counted?.rows[0];
  return row?.subscribers === subscribers && row?.notifications === notifications;
}

/** A new database of that name, loaded with the bench data (bench/data.ts), unless it holds that data already. */
async function ensureData(
  admin: string,
  fresh: () => Promise<void>,
  options: { subscribers: number; notifications: number },
  log: (line: string) => void,
): Promise<void> {
  if (await holds(admin, options.subscribers, options.notifications)) return;
  await fresh();
  const url = withName(admin);
  log(
    `Loading ${options.subscribers.toLocaleString("en")} + ${options.notifications.toLocaleString("en")} rows into ${url}`,
  );
  const args = ["--import", "tsx", "bench/data.ts", "--database-url", url, "--scratch"];
  run(process.execPath, [
    ...args,
    ...["--subscribers", String(options.subscribers), "--notifications", String(options.notifications)],
  ]);
}

async function databases(
  options: { subscribers: number; notifications: number },
  log: (line: string) => void,
): Promise<{ postgres: string; citus: string; citusNodes: string[]; postgresDir: string }> {
  const { plain, coordinator, workers } = clusters();
  await ensureData(
    plain,
    async () => {
      await query(plain, `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await query(plain, `CREATE DATABASE ${databaseName}`);
    },
    options,
    log,
  );
  await ensureData(
    coordinator,
    async () => {
      await dropCitusDatabase(coordinator, workers, databaseName);
      await createCitusDatabase(coordinator, workers, databaseName);
    },
    options,
    log,
  );
  const port = Number(new URL(coordinator).port);
  const citusDir = process.env.CITUS_DIR ?? join(process.cwd(), ".data", "citus");
  return {
    postgres: withName(plain),
    citus: withName(coordinator),
    citusNodes: [port, port + 1, port + 2].map((p) => join(citusDir, `node-${p}`)),
    postgresDir: process.env.PG_DIR ?? join(process.cwd(), ".data", "postgres"),
  };
}

async function storeLatency(store: Store, shape: (store: Store, i: number) => Promise<unknown>, iterations: number) {
  for (let i = 0; i < Math.min(20, iterations); i++) await shape(store, i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const began = performance.now();
    await shape(store, 1000 + i);
    samples.push(performance.now() - began);
  }
  return summarize(samples);
}

export async function measureCitus(
  options: { subscribers: number; notifications: number; iterations: number; seconds: number; repetitions: number },
  log: (line: string) => void,
): Promise<CitusComparison> {
  const connections = 16;
  const where = await databases(options, log);

  const postgres = await openStore({ databaseUrl: where.postgres, totalCountCap: 50_000 });
  const citus = await openStore({ databaseUrl: where.citus, totalCountCap: 50_000 });
  for (const [name, opened] of [
    ["PostgreSQL", postgres],
    ["Citus", citus],
  ] as const) {
    const filled = await fillAllAnswers(opened.store);
    if (filled > 0) log(`${name}: kept the answers of ${filled.toLocaleString("en")} notifications loaded before D59`);
  }
  const ctx = await benchContext(postgres.store);
  const shards = await sql<{ shards: number }>`
    SELECT count(*)::int AS shards FROM pg_dist_shard WHERE logicalrelid = 'subscribers'::regclass`.execute(
    citus.store.db,
  );
  log("Store level: every shape on PostgreSQL, then on Citus");
  const store: CitusComparison["store"] = [];
  for (const shape of benchShapes(ctx)) {
    const onPostgres = await storeLatency(postgres.store, shape.store, options.iterations);
    const onCitus = await storeLatency(citus.store, shape.store, options.iterations);
    store.push({ id: shape.id, label: shape.label, postgres: onPostgres, citus: onCitus });
    log(
      `  ${shape.id.padEnd(28)} p50 ${onPostgres.p50} / ${onCitus.p50} ms, p99 ${onPostgres.p99} / ${onCitus.p99} ms`,
    );
  }
  await postgres.close();
  await citus.close();

  log("Throughput over HTTP, each database's server in turn, with its database CPU per request");
  const servers = {
    postgres: await startServerProcess(benchServerEnv(where.postgres)),
    citus: await startServerProcess(benchServerEnv(where.citus)),
  };
  const headers = { authorization: `ApiKey ${ctx.apiKey}` };
  const shapes = benchShapes(ctx);
  const patch = shapeById(shapes, "patch.data");
  const operations: { name: string; request: (i: number) => HttpRequest }[] = [
    { name: "list", request: () => ({ method: "GET", path: "/v1/notifications" }) },
    { name: "search", request: () => ({ method: "GET", path: "/v2/subscribers" }) },
    { name: "get", request: () => ({ method: "GET", path: `/v1/notifications/${ctx.notificationId}` }) },
    { name: "patch", request: patch.http },
  ];
  const [coordinatorDir, ...workerDirs] = where.citusNodes as [string, ...string[]];
  const cpuOf = {
    postgres: () => serverCpuMs(where.postgresDir),
    coordinator: () => serverCpuMs(coordinatorDir),
    workers: () => workerDirs.reduce((sum, dir) => sum + serverCpuMs(dir), 0),
  };
  const throughput: CitusComparison["throughput"] = [];
  for (const operation of operations) {
    const runs = { postgres: [] as number[], citus: [] as number[] };
    const cpu = { postgres: 0, coordinator: 0, workers: 0 };
    const answered = { postgres: 0, citus: 0 };
    await closedLoop(servers.postgres.baseUrl, operation.request, { connections, seconds: 1, headers });
    await closedLoop(servers.citus.baseUrl, operation.request, { connections, seconds: 1, headers });
    /** A closed loop against one server, with the CPU the given processes spent during it. */
    const measured = async (baseUrl: string, readCpu: () => number[]) => {
      const before = readCpu();
      const loop = await closedLoop(baseUrl, operation.request, { connections, seconds: options.seconds, headers });
      return { loop, cpu: readCpu().map((ms, i) => ms - (before[i] ?? 0)) };
    };
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      // Interleaved, so that a noisy moment on the machine hits both alike.
      const onPostgres = await measured(servers.postgres.baseUrl, () => [cpuOf.postgres()]);
      cpu.postgres += onPostgres.cpu[0] ?? 0;
      answered.postgres += onPostgres.loop.ok;
      runs.postgres.push(Math.round(onPostgres.loop.requestsPerSecond));
      const onCitus = await measured(servers.citus.baseUrl, () => [cpuOf.coordinator(), cpuOf.workers()]);
      cpu.coordinator += onCitus.cpu[0] ?? 0;
      cpu.workers += onCitus.cpu[1] ?? 0;
      answered.citus += onCitus.loop.ok;
      runs.citus.push(Math.round(onCitus.loop.requestsPerSecond));
    }
    const perRequest = (ms: number, requests: number) => Math.round((ms / Math.max(requests, 1)) * 1000) / 1000;
    const entry = {
      operation: operation.name,
      postgres: median(runs.postgres),
      citus: median(runs.citus),
      runs,
      cpu: {
        postgres: perRequest(cpu.postgres, answered.postgres),
        coordinator: perRequest(cpu.coordinator, answered.citus),
        workers: perRequest(cpu.workers, answered.citus),
      },
    };
    throughput.push(entry);
    log(
      `  ${operation.name.padEnd(7)} PostgreSQL ${entry.postgres}/s (${entry.cpu.postgres} ms CPU), Citus ${entry.citus}/s (coordinator ${entry.cpu.coordinator} ms, workers ${entry.cpu.workers} ms)`,
    );
  }
  await servers.postgres.stop();
  await servers.citus.stop();
  return {
    measuredAt: new Date().toISOString(),
    node: process.version,
    subscribers: options.subscribers,
    notifications: options.notifications,
    shards: shards.rows[0]?.shards ?? 0,
    workers: workerDirs.length,
    settings: {
      iterations: options.iterations,
      seconds: options.seconds,
      repetitions: options.repetitions,
      connections,
    },
    store,
    throughput,
  };
}

/** The latest comparison written by a run, for RESULTS.md. */
export function latestCitus(dir = "bench/results"): CitusComparison | undefined {
  return latestSection<CitusComparison>(dir, "citus-");
}

export function writeCitus(comparison: CitusComparison, dir = "bench/results"): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `citus-${comparison.measuredAt.slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(comparison, null, 2)}\n`);
  return file;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  exitWithUsageIfAsked(
    "Usage: npm run bench:citus -- [--subscribers 200000] [--notifications 200000] [--iterations 100] [--seconds 5] [--repetitions 3] [--quick]\n" +
      "  the reference server on Citus (scripts/citus.sh) beside single-node PostgreSQL, on the same data; writes\n" +
      "  bench/results/citus-<date>.json and re-renders bench/RESULTS.md with it",
  );
  const { values } = parseArgs({
    options: {
      subscribers: { type: "string", default: "200000" },
      notifications: { type: "string", default: "200000" },
      iterations: { type: "string", default: "100" },
      seconds: { type: "string", default: "5" },
      repetitions: { type: "string", default: "3" },
      quick: { type: "boolean", default: false },
    },
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const comparison = await measureCitus(
    {
      subscribers: Number(values.subscribers),
      notifications: Number(values.notifications),
      iterations: values.quick ? 10 : Number(values.iterations),
      seconds: values.quick ? 1 : Number(values.seconds),
      repetitions: values.quick ? 1 : Number(values.repetitions),
    },
    log,
  );
  const file = writeCitus(comparison);
  rerenderResults("bench");
  log(`Wrote ${file} and bench/RESULTS.md`);
}
