/**
 * The benchmark matrix (`npm run bench`): store-level and HTTP-level latency for every query shape, EXPLAIN summaries,
 * and closed-loop throughput of the server with and without request validation, raw node:http and the Prism mock,
 * side by side in one run. Needs data: `npm run bench:data` first.
 *   npm run bench -- [--database-url URL] [--pglite DIR] [--repetitions 3] [--seconds 5] [--quick]
 * Writes bench/results/<date>.json and bench/RESULTS.md.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { startMock, startServerProcess, startTsxScript, type Target } from "../scripts/processes.js";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { loadConfig } from "../server/config.js";
import { DatabaseIdempotencyStore } from "../server/database-idempotency.js";
import { mergeGramIndexesEvery } from "../server/store/gram-index-merges.js";
import { openStore, type Store } from "../server/store/store.js";
import { benchServerEnv, node24 as node24Binary } from "./benchmarked-server.js";
import { latestCitus, measureCitus, writeCitus } from "./citus.js";
import { benchContext } from "./context.js";
import { benchDatabaseUrl, fillAllAnswers } from "./database.js";
import { explain, QueryCapture } from "./explain.js";
import { fixedRate } from "./fixed-rate.js";
import { measureIngest } from "./ingest.js";
import { latestLoad } from "./load-results.js";
import { measurePostgresOverload } from "./overload.js";
import { measureEmbeddedOverload } from "./overload-embedded.js";
import { patchAsServer } from "./patch-as-server.js";
import { type OperationProfile, profileOperation } from "./profile.js";
import {
  type BenchResults,
  evaluateTargets,
  minimalName,
  olderNodeName,
  postgresAloneName,
  prismName,
  rawName,
  renderMarkdown,
  type StoreShapeResult,
  serverName,
  unvalidatedName,
} from "./report.js";
import { assertMigratedSchema } from "./schema-check.js";
import { benchShapes, type HttpRequest, type Shape, shapeById } from "./shapes.js";
import { measureStartup } from "./startup.js";
import { median, summarize } from "./stats.js";
import { storeClosedLoop } from "./store-alone.js";
import { closedLoop } from "./throughput.js";
import { vacuumWrittenTables } from "./vacuum.js";

exitWithUsageIfAsked(
  "Usage: npm run bench -- [--pglite DIR] [--database-url URL] [--quick] [--iterations 300] [--http-rate 100]\n" +
    "       [--http-count 400] [--repetitions 3] [--seconds 5] [--connections 16] [--out bench]\n" +
    "  the benchmark matrix on the bench data (npm run bench:data first); writes bench/results/<date>.json and bench/RESULTS.md",
);
const { values } = parseArgs({
  options: {
    "database-url": { type: "string" },
    pglite: { type: "string" },
    iterations: { type: "string", default: "300" },
    "http-rate": { type: "string", default: "100" },
    "http-count": { type: "string", default: "400" },
    repetitions: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    quick: { type: "boolean", default: false },
    out: { type: "string", default: "bench" },
  },
});
const quick = values.quick;
const settings = {
  iterations: quick ? 20 : Number(values.iterations),
  httpRate: Number(values["http-rate"]),
  httpCount: quick ? 20 : Number(values["http-count"]),
  repetitions: quick ? 1 : Number(values.repetitions),
  seconds: quick ? 1 : Number(values.seconds),
  connections: Number(values.connections),
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const startedAt = new Date();

// --- Start-up, first, while nothing else runs ----------------------------------------------------------------------
log("Start-up to the first answer");
const startup = await measureStartup(quick ? 1 : 5, log);

// --- Store level, PostgreSQL -------------------------------------------------------------------------------------
const databaseUrl = await benchDatabaseUrl(values["database-url"]);
const capture = new QueryCapture();
const postgres = await openStore({ databaseUrl, totalCountCap: 50_000, log: capture.log });
// Opening it applied any new migration; what else differs from the migrations' schema would be measured as the code's.
await assertMigratedSchema(databaseUrl, log);
// What an earlier run deleted and its VACUUM could not remove (a run stopped before its cleanup, a snapshot that held
// the rows) would be read past by the searches' first pages: measured as the code's (bench/vacuum.ts).
await vacuumWrittenTables(postgres.store.db, log);
// Rows loaded before migration 012 get their kept answers now, not beside the measurements (D59).
const filledAnswers = await fillAllAnswers(postgres.store);
if (filledAnswers > 0) log(`Kept the answers of ${filledAnswers.toLocaleString("en")} notifications loaded before D59`);
const ctx = await benchContext(postgres.store);
const shapes = benchShapes(ctx);
log(
  `PostgreSQL: ${ctx.subscribers.toLocaleString("en")} subscribers, ${ctx.notifications.toLocaleString("en")} notifications in the benchmarked environment`,
);
const serverEnv = benchServerEnv(databaseUrl);
/** The settings the benchmarked server runs with (its defaults: serverEnv sets none of the tuning ones). */
const serverConfig = loadConfig(serverEnv);
// The server's own background work runs beside the store's calls, as it does beside its requests.
const gramMerges = mergeGramIndexesEvery(postgres.store.db, serverConfig.gramMergeIntervalMs, (error) =>
  log(`gram merges stopped: ${error}`),
);
const storeResults = await measureStore(postgres.store, shapes, true);
gramMerges.stop();
const server = await describeDatabase(postgres.store);
await postgres.close();

let pglite: BenchResults["pglite"];
if (values.pglite) {
  const opened = await openStore({ dataDir: values.pglite, totalCountCap: 50_000 });
  const pgliteCtx = await benchContext(opened.store);
  log(
    `PGlite: ${pgliteCtx.subscribers.toLocaleString("en")} subscribers, ${pgliteCtx.notifications.toLocaleString("en")} notifications`,
  );
  pglite = {
    subscribers: pgliteCtx.subscribers,
    notifications: pgliteCtx.notifications,
    shapes: await measureStore(opened.store, benchShapes(pgliteCtx), false),
  };
  await opened.close();
}

// --- HTTP ----------------------------------------------------------------------------------------------------------
// The headline runs on Node 24; the throughput table has the server and the minimal Express app on this machine's Node
// beside it.
const { binary: node24, version: node24Version } = node24Binary();
const headers = { authorization: `ApiKey ${ctx.apiKey}` };
const validated = await startServerProcess(serverEnv, [], node24);
const withValidation: Target = {
  name: serverName,
  url: validated.baseUrl,
  pid: validated.child.pid as number,
  stop: validated.stop,
};
log("HTTP latency (fixed rate) per shape");
// A warm-up, not measured: the server's first requests compile its validators and open the pool's connections.
for (const shape of shapes) {
  await fixedRate(withValidation.url, (i) => shape.http(i), { ratePerSecond: settings.httpRate, count: 10, headers });
}
const httpResults = [];
for (const shape of shapes) {
  const run = await fixedRate(withValidation.url, (i) => shape.http(i), {
    ratePerSecond: settings.httpRate,
    count: settings.httpCount,
    headers,
  });
  httpResults.push({
    id: shape.id,
    label: shape.label,
    ...summarize(run.latenciesMs),
    errors: run.errors,
    statuses: run.statuses,
  });
  log(`  ${shape.id.padEnd(28)} p50 ${summarize(run.latenciesMs).p50} ms  errors ${run.errors}`);
}

log("Overload: cheap requests at a fixed rate, alone and beside substring searches at 3× what the server serves");
const overload = await measurePostgresOverload(withValidation.url, headers, shapes, {
  cheapRate: settings.httpRate,
  seconds: quick ? 2 : 10,
  timeoutMs: serverConfig.statementTimeoutMs,
});
log(
  `  cheap p99 ${overload.cheapAlone.p99} ms alone, ${overload.cheapMixed.p99} ms beside ${overload.expensiveRate}/s expensive (capacity ${overload.expensiveCapacity}/s); expensive max ${overload.expensive.max} ms ${JSON.stringify(overload.expensive.statuses)}`,
);

log("Overload on the embedded default (PGlite, npm start's demo data), worker thread and server thread");
const embeddedMeasuredAt = new Date().toISOString();
const embeddedOverload = {
  measuredAt: embeddedMeasuredAt,
  node: process.version,
  results: await measureEmbeddedOverload({ seconds: quick ? 2 : 10, cheapRate: 50 }, log),
};

const patchShape = shapeById(shapes, "patch.data");
let aloneKeys = 0;
/** The PostgreSQL-alone PATCHes' idempotency store, bounded as the server's: one, since its bound counts what was saved. */
let aloneIdempotency: DatabaseIdempotencyStore | undefined;
/** Each operation of the throughput table: its HTTP request, and the store's work for it (the "PostgreSQL alone" column). */
const operations: {
  name: string;
  request: (i: number) => HttpRequest;
  store: (store: Store, i: number) => Promise<unknown>;
}[] = [
  {
    name: "list",
    request: () => ({ method: "GET", path: "/v1/notifications" }),
    store: shapeById(shapes, "list.default").store,
  },
  {
    name: "search",
    request: () => ({ method: "GET", path: "/v2/subscribers" }),
    store: shapeById(shapes, "search.default").store,
  },
  {
    name: "get",
    request: () => ({ method: "GET", path: `/v1/notifications/${ctx.notificationId}` }),
    store: shapeById(shapes, "get.byId").store,
  },
  {
    name: "patch",
    request: patchShape.http,
    // As the server runs a PATCH with an Idempotency-Key: the key's lock, the PATCH and its record in one statement, and the
    // server's bound on the stored answers applied as the server applies it.
    store: (store, i) => {
      const { path, body } = patchShape.http(i);
      aloneIdempotency ??= new DatabaseIdempotencyStore(store, {
        maxBytesPerEnvironment: serverConfig.idempotencyMaxBytesPerEnvironment,
      });
      return patchAsServer(aloneIdempotency, store, {
        environmentId: ctx.environmentId,
        subscriberId: decodeURIComponent(path.slice(path.lastIndexOf("/") + 1)),
        body: JSON.parse(body ?? "{}"),
        // A new key on every call: each repetition counts i from 0 again, and a reused key with another body is an
        // error (it made most of the PostgreSQL-alone PATCHes of a repetition fail at once).
        key: `alone-${process.pid}-${aloneKeys++}`,
        path,
      });
    },
  },
];
const bodies = await captureBodies(withValidation.url, operations);
const bodiesFile = `${os.tmpdir()}/bench-bodies-${process.pid}.json`;
writeFileSync(bodiesFile, JSON.stringify(bodies));
const validatedOld = await startServerProcess(serverEnv);
const targets: Target[] = [
  withValidation,
  await startTsxScript(minimalName, "bench/minimal-express.ts", [ctx.environmentId], serverEnv, node24),
  {
    name: olderNodeName(serverName, process.version),
    url: validatedOld.baseUrl,
    pid: validatedOld.child.pid as number,
    stop: validatedOld.stop,
  },
  await startTsxScript(
    olderNodeName(minimalName, process.version),
    "bench/minimal-express.ts",
    [ctx.environmentId],
    serverEnv,
  ),
  await startTsxScript(unvalidatedName, "bench/server-without-validation.ts", [], serverEnv, node24),
  await startTsxScript(rawName, "bench/raw-server.ts", [bodiesFile], {}, node24),
  await (async () => {
    const prism = await startMock(node24);
    return { name: prismName, url: prism.url, pid: prism.child.pid as number, stop: prism.stop };
  })(),
];
// The "PostgreSQL alone" column: the store's work with the server's pool size and statement settings, no HTTP.
const alone = await openStore({
  databaseUrl,
  poolSize: serverConfig.poolSize,
  statementTimeoutMs: serverConfig.statementTimeoutMs,
  preparedStatements: serverConfig.preparedStatements,
  totalCountCap: serverConfig.totalCountCap,
});
log(
  `Throughput (closed loop, ${settings.connections} connections, ${settings.seconds} s, ${settings.repetitions} repetitions)`,
);
const throughput = [];
for (const operation of operations) {
  const names = [...targets.map((target) => target.name), postgresAloneName];
  const runs: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const failures: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  for (let repetition = 0; repetition < settings.repetitions; repetition++) {
    // Interleaved, so that a noisy moment on the machine hits every target alike.
    for (const target of targets) {
      const run = await closedLoop(target.url, operation.request, {
        connections: settings.connections,
        seconds: settings.seconds,
        headers,
      });
      runs[target.name]?.push(Math.round(run.requestsPerSecond));
      failures[target.name] = (failures[target.name] ?? 0) + run.non2xx + run.errors;
    }
    const run = await storeClosedLoop(alone.store, operation.store, {
      connections: settings.connections,
      seconds: settings.seconds,
    });
    runs[postgresAloneName]?.push(Math.round(run.requestsPerSecond));
    failures[postgresAloneName] = (failures[postgresAloneName] ?? 0) + run.errors;
  }
  const medians = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, median(list)]));
  throughput.push({ operation: operation.name, runs, medians, failures });
  log(
    `  ${operation.name.padEnd(8)} ${Object.entries(medians)
      .map(([name, value]) => `${name} ${value}/s`)
      .join("  ")}`,
  );
}
for (const target of targets) await target.stop();
await alone.close();

log("CPU profile per operation (a server started with --cpu-prof, one operation at a time)");
const profiles: OperationProfile[] = [];
for (const operation of operations) {
  const profile = await profileOperation(operation.name, operation.request, {
    env: serverEnv,
    node: node24,
    headers,
    connections: settings.connections,
    seconds: quick ? 2 : 8,
    // PostgreSQL's CPU is read from this machine's processes: only when the database runs here.
    postgresLocal: !values["database-url"],
  });
  profiles.push(profile);
  log(
    `  ${operation.name.padEnd(8)} Node ${profile.nodeMsPerRequest} ms/request, PostgreSQL ${profile.postgresMsPerRequest ?? "?"} ms/request; ${Object.entries(
      profile.shares,
    )
      .map(([category, share]) => `${category} ${share}%`)
      .join(", ")}`,
  );
}

log("Ingest: new rows into the million-row tables, with every index and count trigger, beside PostgreSQL alone");
const writer = await openStore({ databaseUrl, totalCountCap: 50_000 });
const ingest = await measureIngest(
  writer.store,
  databaseUrl,
  await ingestTarget(writer.store, ctx.environmentId),
  quick ? { count: 2000, singles: 100, singleRate: 50 } : { count: 20_000, singles: 1000, singleRate: 100 },
);
await writer.close();
for (const table of ingest) {
  log(
    `  ${table.table.padEnd(14)} bulk ${table.bulkRowsPerSecond}/s (alone ${table.aloneBulkRowsPerSecond}/s); one at a time at ${table.singleRate}/s p99 ${table.single.p99} ms (alone ${table.aloneSingle.p99} ms)`,
  );
}

// Past one machine: Citus beside single-node PostgreSQL, where the workplace's Citus source is at hand (scripts/citus.sh).
let citus = latestCitus(`${values.out}/results`);
if (spawnSync("scripts/citus.sh", ["source"], { stdio: "ignore" }).status === 0) {
  log("Citus (a coordinator and two workers) beside single-node PostgreSQL, on the same data");
  citus = await measureCitus(
    {
      subscribers: 200_000,
      notifications: 200_000,
      iterations: quick ? 10 : 100,
      seconds: settings.seconds,
      repetitions: settings.repetitions,
    },
    log,
  );
  if (!quick) writeCitus(citus, `${values.out}/results`);
}

const results: BenchResults = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  quick,
  machine: {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
  },
  node: process.version,
  node24: node24Version,
  load: latestLoad(values.out),
  ingest,
  database: server,
  context: { ...ctx, subscriberIds: ctx.subscriberIds.length },
  settings,
  store: storeResults,
  pglite,
  http: httpResults,
  throughput,
  profiles,
  overload,
  embeddedOverload,
  citus,
  startup,
  targets: [],
};
results.targets = evaluateTargets(results);
mkdirSync(`${values.out}/results`, { recursive: true });
const file = `${values.out}/results/${startedAt.toISOString().slice(0, 10)}${quick ? "-quick" : ""}.json`;
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
if (!quick) writeFileSync(`${values.out}/RESULTS.md`, renderMarkdown(results, file));
log(`Wrote ${file}${quick ? "" : ` and ${values.out}/RESULTS.md`}`);
for (const target of results.targets) log(`  ${target.met ? "met   " : "MISSED"} ${target.name}: ${target.measured}`);
process.exit(0);

async function measureStore(store: Store, list: Shape[], withPlans: boolean): Promise<StoreShapeResult[]> {
  const out: StoreShapeResult[] = [];
  for (const shape of list) {
    for (let i = 0; i < Math.min(20, settings.iterations); i++) await shape.store(store, i);
    const samples: number[] = [];
    for (let i = 0; i < settings.iterations; i++) {
      const began = performance.now();
      await shape.store(store, 1000 + i);
      samples.push(performance.now() - began);
    }
    const plans = withPlans ? await explain(store.db, await capture.during(() => shape.store(store, 100_000))) : [];
    const summary = summarize(samples);
    out.push({ id: shape.id, label: shape.label, ...summary, plans });
    log(
      `  store ${shape.id.padEnd(28)} p50 ${summary.p50} p99 ${summary.p99} ms ${plans.map((plan) => plan.indexes.join("+") || plan.seqScans.map((s) => `SEQ ${s}`).join("+")).join(" | ")}`,
    );
  }
  return out;
}

async function describeDatabase(store: Store) {
  const row = (
    await sql<{ version: string; shared_buffers: string; subscribers_mb: number; notifications_mb: number }>`
      SELECT version(), current_setting('shared_buffers') AS shared_buffers,
        (pg_total_relation_size('subscribers') / 1048576)::int AS subscribers_mb,
        -- notifications is partitioned by month: its own size is 0, its partitions hold the rows and indexes.
        ((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('notifications')) / 1048576)::int
          AS notifications_mb`.execute(store.db)
  ).rows[0];
  const counts = (
    await sql<{ subscribers: number; notifications: number }>`
      SELECT (SELECT count(*)::int FROM subscribers) AS subscribers, (SELECT count(*)::int FROM notifications) AS notifications`.execute(
      store.db,
    )
  ).rows[0];
  return {
    version: row?.version.split(" on ")[0] ?? "unknown",
    sharedBuffers: row?.shared_buffers ?? "unknown",
    totalSubscribers: counts?.subscribers ?? 0,
    totalNotifications: counts?.notifications ?? 0,
    subscribersMb: row?.subscribers_mb ?? 0,
    notificationsMb: row?.notifications_mb ?? 0,
  };
}

/** The benchmarked environment's organization and workflows, which new notifications refer to. */
async function ingestTarget(store: Store, environmentId: string) {
  const environment = await store.db
    .selectFrom("environments")
    .select("organization_id")
    .where("id", "=", environmentId)
    .executeTakeFirstOrThrow();
  const workflows = await store.db
    .selectFrom("workflows")
    .select("id")
    .where("environment_id", "=", environmentId)
    .execute();
  return { environmentId, organizationId: environment.organization_id, workflowIds: workflows.map((row) => row.id) };
}

/** One real answer per operation, for the raw node:http ceiling to send back. */
async function captureBodies(
  baseUrl: string,
  list: { name: string; request: (i: number) => HttpRequest }[],
): Promise<Record<string, string>> {
  const bodies: Record<string, string> = {};
  for (const operation of list) {
    const { method, path, body, headers: extra } = operation.request(0);
    const response = await fetch(`${baseUrl}${path}`, { method, body, headers: { ...headers, ...extra } });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`);
    // Requests with an id in the path are told apart from the collection by the trailing slash.
    const prefix = operation.name === "get" || operation.name === "patch" ? path.replace(/[^/]+$/, "") : path;
    bodies[`${method} ${prefix}`] = await response.text();
  }
  return bodies;
}
