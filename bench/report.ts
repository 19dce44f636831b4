/** The benchmark's results: their shape, the targets they are judged by, and the markdown table of RESULTS.md. */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuCategories } from "./cpu.js";
import type { StatementPlan } from "./explain.js";
import type { IngestTable } from "./ingest.js";
import { type LoadResult, latestLoad } from "./load-results.js";
import type { EmbeddedOverload, OverloadResult, PostgresOverload } from "./overload.js";
import type { OperationProfile } from "./profile.js";
import { renderStartup, type StartupResult } from "./startup.js";
import type { Summary } from "./stats.js";

export interface StoreShapeResult extends Summary {
  id: string;
  label: string;
  plans: StatementPlan[];
}

export interface HttpShapeResult extends Summary {
  id: string;
  label: string;
  errors: number;
  statuses: Record<string, number>;
}

export interface ThroughputResult {
  operation: string;
  /** Requests per second of each repetition, per target. */
  runs: Record<string, number[]>;
  medians: Record<string, number>;
  failures: Record<string, number>;
}

export interface TargetResult {
  name: string;
  goal: string;
  measured: string;
  met: boolean;
}

/** The server on Citus beside single-node PostgreSQL, on the same data (citus.ts, `npm run bench:citus`). */
export interface CitusComparison {
  measuredAt: string;
  node: string;
  subscribers: number;
  notifications: number;
  /** Shards per distributed table, and the workers they are spread over. */
  shards: number;
  workers: number;
  settings: { iterations: number; seconds: number; repetitions: number; connections: number };
  store: { id: string; label: string; postgres: Summary; citus: Summary }[];
  throughput: {
    operation: string;
    postgres: number;
    citus: number;
    runs: { postgres: number[]; citus: number[] };
    /** Database CPU per request, ms: the single node's, and the Citus coordinator's and workers' (all of them). */
    cpu: { postgres: number; coordinator: number; workers: number };
  }[];
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  machine: { cpu: string; cores: number; memoryGb: number; os: string };
  /** The Node that ran the benchmark itself (the PostgreSQL-alone loops) and the "(Node 20)" columns. */
  node: string;
  /** The Node 24 that the headline columns ran on: the server, the minimal Express app, and the other targets. */
  node24?: string | undefined;
  /** The latest `npm run bench:data` (bench/results/load-*.json). */
  load?: (LoadResult & { file: string }) | undefined;
  /** New rows written into the loaded tables (ingest.ts). */
  ingest?: IngestTable[] | undefined;
  database: {
    version: string;
    sharedBuffers: string;
    totalSubscribers: number;
    totalNotifications: number;
    subscribersMb: number;
    notificationsMb: number;
  };
  context: { subscribers: number; notifications: number; deepCursorRow: number } & Record<string, unknown>;
  settings: Record<string, number>;
  store: StoreShapeResult[];
  pglite?: { subscribers: number; notifications: number; shapes: StoreShapeResult[] } | undefined;
  http: HttpShapeResult[];
  throughput: ThroughputResult[];
  /** Where each operation's CPU goes, from a profiled run of that operation alone. */
  profiles?: OperationProfile[] | undefined;
  startup?: StartupResult[] | undefined;
  overload?: OverloadResult | undefined;
  /** Set when `overload` was measured on its own after the run (`npm run bench:overload -- --postgres`). */
  overloadAlone?: { measuredAt: string; node: string } | undefined;
  /** Overload on the embedded default (PGlite, `npm start`), PGlite's worker thread beside the server's own thread. */
  embeddedOverload?: { measuredAt: string; node: string; results: EmbeddedOverload[] } | undefined;
  /** The server on Citus beside single-node PostgreSQL, on the same data (citus.ts). */
  citus?: CitusComparison | undefined;
  targets: TargetResult[];
}

/** The newest `<prefix><date>.json` under `dir` (a section measured alone: `overload-embedded-`, `citus-`), if any. */
export function latestSection<T>(dir: string, prefix: string): T | undefined {
  if (!existsSync(dir)) return undefined;
  const pattern = new RegExp(`^${prefix}\\d{4}-\\d{2}-\\d{2}\\.json$`);
  const latest = readdirSync(dir)
    .filter((name) => pattern.test(name))
    .sort()
    .at(-1);
  return latest ? (JSON.parse(readFileSync(join(dir, latest), "utf8")) as T) : undefined;
}

/** The later of two measurements of one section (the full run's own, and its newest file measured alone). */
function newest<T>(a: T | undefined, b: T | undefined, takenAt: (section: T) => string): T | undefined {
  if (!a || !b) return a ?? b;
  return takenAt(b) > takenAt(a) ? b : a;
}

/**
 * RESULTS.md again, from the latest full run (`<dir>/results/<date>.json`), each section that is also measured alone
 * (`npm run bench:data`, `bench:overload`, `bench:overload -- --postgres`, `bench:citus`, which write their file
 * first) shown from whichever is newer: the run's own or the section's latest file. Nothing when there is no full run.
 */
export function rerenderResults(dir: string): void {
  const results = join(dir, "results");
  const full = existsSync(results)
    ? readdirSync(results)
        .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
        .sort()
        .at(-1)
    : undefined;
  if (!full) return;
  const path = join(results, full);
  const latest = JSON.parse(readFileSync(path, "utf8")) as BenchResults;
  latest.embeddedOverload = newest(
    latest.embeddedOverload,
    latestSection<NonNullable<BenchResults["embeddedOverload"]>>(results, "overload-embedded-"),
    (section) => section.measuredAt,
  );
  latest.citus = newest(latest.citus, latestSection<CitusComparison>(results, "citus-"), (c) => c.measuredAt);
  latest.load = newest(latest.load, latestLoad(dir), (load) => load.startedAt);
  const overloadAlone = latestSection<PostgresOverload>(results, "overload-postgres-");
  // The run's own section has no time of its own: the run's.
  if (overloadAlone && overloadAlone.measuredAt > latest.startedAt) {
    latest.overload = overloadAlone.result;
    latest.overloadAlone = { measuredAt: overloadAlone.measuredAt, node: overloadAlone.node };
  }
  latest.targets = evaluateTargets(latest);
  writeFileSync(join(dir, "RESULTS.md"), renderMarkdown(latest, path));
}

/** The throughput table's columns: the headline ones run on Node 24, the current LTS. */
export const serverName = "server";
export const minimalName = "minimal Express";
export const unvalidatedName = "no validation";
export const rawName = "raw node:http";
export const prismName = "Prism mock";
/** The major of a Node version ("v20.20.2" → "20"). */
function majorOf(version: string): string {
  return version.replace(/^v/, "").split(".")[0] ?? version;
}

/** The same target on the older Node that runs the benchmark (while it is supported), e.g. "server (Node 20)". */
export function olderNodeName(name: string, nodeVersion: string): string {
  return `${name} (Node ${majorOf(nodeVersion)})`;
}
/** The store's work for the operation from a plain loop, no HTTP (store-alone.ts). */
export const postgresAloneName = "PostgreSQL alone";

export function evaluateTargets(results: BenchResults): TargetResult[] {
  const targets: TargetResult[] = [];
  const slow = results.store.filter((shape) => shape.p99 > 10);
  const worst = [...results.store].sort((a, b) => b.p99 - a.p99)[0];
  targets.push({
    name: "store p99 ≤ 10 ms",
    goal: "every store query shape, p99 ≤ 10 ms at 1M rows on PostgreSQL",
    measured: slow.length
      ? `${slow.length} of ${results.store.length} shapes over: ${slow.map((shape) => `${shape.id} ${shape.p99} ms`).join(", ")}`
      : `all ${results.store.length} shapes; worst ${worst?.id} ${worst?.p99} ms`,
    met: slow.length === 0,
  });
  const first = results.store.find((shape) => shape.id === "search.default");
  const deep = results.store.find((shape) => shape.id === "search.deepCursor");
  if (first && deep) {
    const ratio = deep.p50 / first.p50;
    targets.push({
      name: "deep cursor ≤ 1.5× first page",
      goal: `subscriber search after row ${results.context.deepCursorRow.toLocaleString("en")} within 1.5× of the first page (p50)`,
      measured: `${deep.p50} ms vs ${first.p50} ms = ${ratio.toFixed(2)}× (p99 ${deep.p99} vs ${first.p99} ms)`,
      met: ratio <= 1.5,
    });
  }
  const costs = results.throughput.map((row) => {
    const on = row.medians[serverName] ?? 0;
    const off = row.medians[unvalidatedName] ?? 0;
    return { operation: row.operation, cost: off > 0 ? 1 - on / off : 0 };
  });
  const worstCost = Math.max(...costs.map((row) => row.cost));
  targets.push({
    name: "validation ≤ 15% of throughput",
    goal: "request validation costs at most 15% of requests/s (median of the repetitions, per operation)",
    measured: costs.map((row) => `${row.operation} ${(row.cost * 100).toFixed(1)}%`).join(", "),
    met: worstCost <= 0.15,
  });
  targets.push(
    ...substringTargets(results),
    ...pipelineTargets(results),
    ...overloadTargets(results),
    ...embeddedOverloadTargets(results),
    ...loadTargets(results),
  );
  return targets;
}

/** The server against the same framework doing the same database work (bench/minimal-express.ts), per Node. */
function pipelineTargets(results: BenchResults): TargetResult[] {
  const ratios = (server: string, minimal: string) =>
    results.throughput
      .filter((entry) => entry.medians[minimal])
      .map((entry) => ({
        operation: entry.operation,
        ratio: (entry.medians[server] ?? 0) / (entry.medians[minimal] || 1),
      }));
  const headline = ratios(serverName, minimalName);
  if (!headline.length) return [];
  const older = ratios(olderNodeName(serverName, results.node), olderNodeName(minimalName, results.node));
  const list = (entries: { operation: string; ratio: number }[]) =>
    entries.map((entry) => `${entry.operation} ${entry.ratio.toFixed(2)}×`).join(", ");
  return [
    {
      name: "server ≥ 0.85× minimal Express",
      goal: `closed loop, 16 connections, validation on: every operation ≥ 0.85× a plain Express 5 app running the same statements and sending the same bytes (${results.node24 ?? "Node 24"})`,
      measured: `${list(headline)}${older.length ? `; on ${results.node}: ${list(older)}` : ""}`,
      met: headline.every((entry) => entry.ratio >= 0.85),
    },
  ];
}

/** `npm run bench:data`'s load rate, from its latest results file. */
function loadTargets(results: BenchResults): TargetResult[] {
  const load = results.load;
  if (!load) return [];
  const pace = load.tables
    .map(
      (table) =>
        `${table.table} ${number(table.rowsPerSecond)}/s (first tenth ${number(table.firstTenth)}, last ${number(table.lastTenth)})`,
    )
    .join("; ");
  return [
    {
      name: "bench:data ≥ 10,000 rows/s",
      goal: "`npm run bench:data` loads 2M rows at ≥ 10,000 rows/s, kept counts included, steady as the tables grow",
      measured: `${number(load.rows)} rows in ${load.seconds} s = ${number(load.rowsPerSecond)} rows/s (${load.startedAt.slice(0, 10)}); ${pace}`,
      met: load.rowsPerSecond >= 10_000,
    },
  ];
}

/** The substring shapes at store level, the HTTP latency of every shape, and throughput against Prism (#15). */
function substringTargets(results: BenchResults): TargetResult[] {
  const out: TargetResult[] = [];
  const few = results.store.filter((shape) =>
    ["search.email", "search.emailShortRare", "search.name", "search.phone", "list.search"].includes(shape.id),
  );
  const overCap = results.store.filter((shape) =>
    ["search.emailOverCap", "search.emailOverCapLocal", "search.nameOneChar"].includes(shape.id),
  );
  if (few.length) {
    out.push({
      name: "substring p99 ≤ 10 ms",
      goal: "store p99 ≤ 10 ms for a substring term with few matches (email, a two-character email term, name, phone, the list's search)",
      measured: few.map((shape) => `${shape.id} ${shape.p99} ms`).join(", "),
      met: few.every((shape) => shape.p99 <= 10),
    });
  }
  const manyUnderCap = results.store.find((shape) => shape.id === "search.emailManyUnderCap");
  if (manyUnderCap) {
    out.push({
      name: "many matches under the cap p99 ≤ 25 ms",
      goal: `store p99 ≤ 25 ms for ${manyUnderCap.label}, or a design note comparing exact counting with Novu's (docs/decisions.md D37)`,
      measured: `p50 ${manyUnderCap.p50} ms, p99 ${manyUnderCap.p99} ms`,
      met: manyUnderCap.p99 <= 25,
    });
  }
  if (overCap.length) {
    out.push({
      name: "substring over the cap p99 ≤ 25 ms",
      goal: "store p99 ≤ 25 ms (aim 10) for a substring term matching more rows than the count cap",
      measured: overCap.map((shape) => `${shape.id} p50 ${shape.p50} ms, p99 ${shape.p99} ms`).join("; "),
      met: overCap.every((shape) => shape.p99 <= 25),
    });
  }
  const slowHttp = results.http.filter((shape) => shape.p99 > 50);
  const worstHttp = [...results.http].sort((a, b) => b.p99 - a.p99)[0];
  out.push({
    name: "HTTP p99 ≤ 50 ms",
    goal: `every shape over HTTP at a fixed ${results.settings.httpRate} requests/s, p99 ≤ 50 ms`,
    measured: slowHttp.length
      ? `${slowHttp.length} of ${results.http.length} over: ${slowHttp.map((shape) => `${shape.id} ${shape.p99} ms`).join(", ")}`
      : `all ${results.http.length} shapes; worst ${worstHttp?.id} ${worstHttp?.p99} ms`,
    met: slowHttp.length === 0,
  });
  // Round four's goals (#45): the list at twice Prism, the PATCH at Prism's rate.
  const goals: Record<string, number> = { get: 1.5, search: 1.5, list: 2, patch: 1 };
  const ratios = results.throughput
    .filter((entry) => goals[entry.operation] !== undefined)
    .map((entry) => ({
      operation: entry.operation,
      goal: goals[entry.operation] as number,
      ratio: (entry.medians[serverName] ?? 0) / (entry.medians[prismName] || 1),
    }));
  // Round three asks more of the write and the heavy read (#28): their database work dominates the request.
  const aloneGoals: Record<string, number> = { list: 0.9, patch: 0.9, get: 0.7, search: 0.7 };
  const aloneRatios = results.throughput
    .filter((entry) => entry.medians[postgresAloneName])
    .map((entry) => ({
      operation: entry.operation,
      goal: aloneGoals[entry.operation] ?? 0.7,
      ratio: (entry.medians[serverName] ?? 0) / (entry.medians[postgresAloneName] || 1),
    }));
  if (aloneRatios.length) {
    out.push({
      name: "throughput against PostgreSQL alone",
      goal: "closed loop, 16 connections: list and patch ≥ 0.9× the same database work from a plain loop, get and search ≥ 0.7×",
      measured: aloneRatios
        .map((entry) => `${entry.operation} ${entry.ratio.toFixed(2)}× (goal ${entry.goal}×)`)
        .join(", "),
      met: aloneRatios.every((entry) => entry.ratio >= entry.goal),
    });
  }
  out.push({
    name: "throughput against Prism",
    goal: "closed loop, 16 connections: get and search ≥ 1.5× the Prism mock, the list ≥ 2×, the PATCH ≥ 1×",
    measured: ratios.map((entry) => `${entry.operation} ${entry.ratio.toFixed(2)}× (goal ${entry.goal}×)`).join(", "),
    met: ratios.every((entry) => entry.ratio >= entry.goal),
  });
  const list = results.throughput.find((entry) => entry.operation === "list");
  const listRaw = list?.medians[rawName];
  if (list && listRaw) {
    const share = (list.medians[serverName] ?? 0) / listRaw;
    out.push({
      name: "the list against raw node:http",
      goal: "closed loop, 16 connections: the list ≥ 20% of raw `node:http` sending an answer of the same size (#45)",
      measured: `${Math.round(list.medians[serverName] ?? 0).toLocaleString("en")} against ${Math.round(listRaw).toLocaleString("en")} requests/s = ${(share * 100).toFixed(1)}%`,
      met: share >= 0.2,
    });
  }
  return out;
}

function overloadTargets(results: BenchResults): TargetResult[] {
  const o = results.overload;
  if (!o) return [];
  const answered = Object.entries(o.expensive.statuses).every(([status]) => status === "200" || status === "503");
  return [
    cheapP99Target(
      "cheap p99 under overload ≤ 2×",
      `cheap requests at ${o.cheapRate}/s keep their p99 within 2× of the run without expensive ones, beside "${o.expensiveLabel}" at 3× capacity`,
      o,
    ),
    {
      name: "every expensive request answered in time",
      goal: `every expensive request answered 200 or 503 within the statement timeout (${o.timeoutMs} ms)`,
      measured: `${statusList(o.expensive.statuses)}; slowest ${o.expensive.max} ms`,
      met: answered && o.expensive.max <= o.timeoutMs,
    },
  ];
}

function embeddedOverloadTargets(results: BenchResults): TargetResult[] {
  const threaded = results.embeddedOverload?.results.find((entry) => entry.mode === "worker thread")?.result;
  if (!threaded) return [];
  return [
    cheapP99Target(
      "cheap p99 under overload ≤ 2×, on PGlite",
      `npm start's server (PGlite on its worker thread): cheap requests at ${threaded.cheapRate}/s keep their p99 within 2× of the run without expensive ones, beside list searches at 3× capacity`,
      threaded,
    ),
  ];
}

/** Cheap requests' p99 beside the flood within 2× of their p99 alone. */
function cheapP99Target(name: string, goal: string, o: OverloadResult): TargetResult {
  return {
    name,
    goal,
    measured: `${o.cheapMixed.p99} ms beside ${o.expensiveRate}/s vs ${o.cheapAlone.p99} ms alone = ${(o.cheapMixed.p99 / o.cheapAlone.p99).toFixed(2)}×`,
    met: o.cheapMixed.p99 <= 2 * o.cheapAlone.p99,
  };
}

/** A run's p50, p90, p99 and max, and its answers: the cells of an overload table's row. */
function latencyCells(run: OverloadResult["cheapAlone"]): (string | number)[] {
  return [run.p50, run.p90, run.p99, run.max, statusList(run.statuses)];
}

function statusList(statuses: Record<string, number>): string {
  return Object.entries(statuses)
    .map(([status, count]) => `${count.toLocaleString("en")} × ${status}`)
    .join(", ");
}

const number = (value: number) => value.toLocaleString("en");
const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;

function planCell(plans: StatementPlan[]): string {
  return plans
    .map((plan) => {
      const access = [...plan.indexes, ...plan.seqScans.map((table) => `**Seq Scan ${table}**`)].join(", ") || "none";
      return `${access} (${plan.executionMs} ms, ${plan.buffers} buf)`;
    })
    .join("; ");
}

export function renderMarkdown(results: BenchResults, file: string): string {
  const { machine, database, context, settings } = results;
  const major = majorOf(results.node);
  const lines: string[] = [
    "# Benchmark results",
    "",
    `Generated by \`npm run bench\` on ${results.startedAt.slice(0, 16).replace("T", " ")} UTC (raw numbers: \`${file}\`).`,
    "Do not edit by hand: run `npm run bench:data` once, then `npm run bench`.",
    "",
    "## Machine and data",
    "",
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GiB, ${machine.os}; shared with other work, so read ratios, not absolutes.`,
    `- Node: every server and mock on ${results.node24 ?? "Node 24"} (the current LTS) unless a column says "(Node ${major})"; the benchmark itself, its load generator and the PostgreSQL-alone loops on ${results.node}. ${database.version}, shared_buffers ${database.sharedBuffers}, on the same machine (loopback).`,
    `- Data: ${number(database.totalSubscribers)} subscribers (${number(database.subscribersMb)} MB with indexes) and ${number(database.totalNotifications)} notifications (${number(database.notificationsMb)} MB); the benchmarked environment holds ${number(context.subscribers)} live subscribers and ${number(context.notifications)} notifications.`,
    `- Store level: ${settings.iterations} sequential runs per shape after a warm-up, with the server's background merges of the gram indexes (D34) running beside them. HTTP latency: ${settings.httpCount} requests per shape at a fixed ${settings.httpRate} requests/s after a warm-up of 10 per shape (open loop, latency from the moment each request was due), against the server in production mode (request validation on, response validation off). Throughput: autocannon, ${settings.connections} connections, ${settings.seconds} s per run, ${settings.repetitions} interleaved repetitions, medians.`,
    "",
    "## Targets",
    "",
    row(["Target", "Measured", "Result"]),
    row(["---", "---", "---"]),
    ...results.targets.map((target) => row([target.goal, target.measured, target.met ? "met" : "**missed**"])),
    "",
    "Why a target is missed, from profiles and plans, is in [ANALYSIS.md](ANALYSIS.md), written by hand for the run it names: check its figures against the ones above before trusting it.",
    "",
    "## Store level (PostgreSQL)",
    "",
    "Milliseconds per call of the store method the handler calls (all of its statements). Plans: the indexes each statement reads in the plan nodes that ran (EXPLAIN ANALYZE execution time, shared buffers touched); a sequential scan is shown in bold.",
    "",
    row(["Shape", "p50", "p90", "p99", "Plan per statement"]),
    row(["---", "---:", "---:", "---:", "---"]),
    ...results.store.map((shape) => row([shape.label, shape.p50, shape.p90, shape.p99, planCell(shape.plans)])),
    "",
  ];
  if (results.pglite) {
    lines.push(
      `## Store level (PGlite, ${number(results.pglite.subscribers)} subscribers, ${number(results.pglite.notifications)} notifications)`,
      "",
      "The embedded default, for comparison (measured in the run named above). Since 0.3.0 the server runs PGlite on a worker thread, so these milliseconds no longer stop it from answering other requests (see the overload on the embedded default below).",
      "",
      row(["Shape", "p50", "p90", "p99"]),
      row(["---", "---:", "---:", "---:"]),
      ...results.pglite.shapes.map((shape) => row([shape.label, shape.p50, shape.p90, shape.p99])),
      "",
    );
  }
  lines.push(
    `## HTTP level (server on PostgreSQL, ${results.node24 ?? "Node 24"})`,
    "",
    row(["Shape", "p50", "p90", "p99", "Errors"]),
    row(["---", "---:", "---:", "---:", "---:"]),
    ...results.http.map((shape) => row([shape.label, shape.p50, shape.p90, shape.p99, shape.errors])),
    "",
    "## Throughput (requests/s, closed loop)",
    "",
    `The same request to each target, every one on ${results.node24 ?? "Node 24"} (the current LTS, what the README tells users to run) unless its name says otherwise: the server with request validation (\`NODE_ENV=production\`, \`LOG_LEVEL=warn\`, so no log line per request, and its defaults otherwise); **${minimalName}**, a plain Express 5 app running the server's own statements and sending the same bytes with nothing else (bench/minimal-express.ts); both again on ${results.node}, the oldest Node the packages support; the server without validation; raw \`node:http\` sending a captured answer of the same size (the ceiling of this machine); the Prism mock. **${postgresAloneName}**: the store's calls for the same operation (the same statements, over a pool of the server's size and settings; the PATCH with its idempotency record, as the server runs it) from ${results.settings.connections} concurrent loops in the benchmark's process (${results.node}), with no HTTP: how much of each request is the database's.`,
    "",
    row([
      "Operation",
      serverName,
      minimalName,
      olderNodeName(serverName, results.node),
      olderNodeName(minimalName, results.node),
      unvalidatedName,
      rawName,
      prismName,
      postgresAloneName,
      `server ÷ ${minimalName}`,
      "validation cost",
      "server ÷ Prism",
      `server ÷ ${postgresAloneName}`,
      "server ÷ ceiling",
    ]),
    row(["---", ...Array.from({ length: 13 }, () => "---:")]),
    ...results.throughput.map((entry) => {
      const m = entry.medians;
      const on = m[serverName] ?? 0;
      const off = m[unvalidatedName] ?? 0;
      const cell = (name: string) => (m[name] ? number(m[name]) : "–");
      return row([
        entry.operation,
        number(on),
        cell(minimalName),
        cell(olderNodeName(serverName, results.node)),
        cell(olderNodeName(minimalName, results.node)),
        number(off),
        cell(rawName),
        cell(prismName),
        cell(postgresAloneName),
        m[minimalName] ? `${(on / m[minimalName]).toFixed(2)}×` : "–",
        `${(off ? (1 - on / off) * 100 : 0).toFixed(1)}%`,
        `${(on / (m[prismName] || 1)).toFixed(2)}×`,
        m[postgresAloneName] ? `${(on / m[postgresAloneName]).toFixed(2)}×` : "–",
        `${((on / (m[rawName] || 1)) * 100).toFixed(0)}%`,
      ]);
    }),
    "",
    `Failed requests (non-2xx or errors) per target: ${results.throughput
      .map(
        (entry) =>
          `${entry.operation}: ${Object.entries(entry.failures)
            .map(([name, count]) => `${name} ${count}`)
            .join(", ")}`,
      )
      .join("; ")}.`,
    "",
  );
  if (results.profiles?.length) lines.push(...renderProfiles(results.profiles));
  if (results.ingest?.length || results.load) lines.push(...renderIngest(results.ingest ?? [], results.load));
  if (results.overload) lines.push(...renderOverload(results.overload, results.overloadAlone, results.node24));
  if (results.embeddedOverload) lines.push(...renderEmbeddedOverload(results.embeddedOverload));
  if (results.citus) lines.push(...renderCitus(results.citus));
  if (results.startup) lines.push(...renderStartup(results.startup));
  return `${lines.join("\n")}\n`;
}

function renderOverload(o: OverloadResult, alone: BenchResults["overloadAlone"], node24: string | undefined): string[] {
  const measured = alone
    ? `Measured ${alone.measuredAt.slice(0, 16).replace("T", " ")} UTC by \`npm run bench:overload -- --postgres\`, after the run above, on the same data. `
    : "";
  return [
    `## Overload (server on PostgreSQL, ${alone?.node ?? node24 ?? "Node 24"}, default settings)`,
    "",
    `${measured}Cheap requests (list, get, search without filters, in turn) at a fixed ${o.cheapRate} requests/s, first alone, then beside "${o.expensiveLabel}" sent at ${o.expensiveRate}/s: three times the ${o.expensiveCapacity}/s the server answered 200 in a closed loop of 16 connections. Milliseconds from the moment each request was due.`,
    "",
    row(["Run", "p50", "p90", "p99", "max", "Answers"]),
    row(["---", "---:", "---:", "---:", "---:", "---"]),
    row(["cheap, alone", ...latencyCells(o.cheapAlone)]),
    row(["cheap, beside the flood", ...latencyCells(o.cheapMixed)]),
    row(["expensive flood", ...latencyCells(o.expensive)]),
    "",
  ];
}

function renderEmbeddedOverload(embedded: NonNullable<BenchResults["embeddedOverload"]>): string[] {
  const lines = [
    `## Overload on the embedded default (\`npm start\`: PGlite with the demo data, ${embedded.node})`,
    "",
    `Measured ${embedded.measuredAt.slice(0, 16).replace("T", " ")} UTC by \`npm run bench:overload\` (or \`npm run bench\`), one server after the other: PGlite on its worker thread (the default) and on the server's own thread (\`PGLITE_THREAD=false\`, how every version before 0.3.0 ran it). Cheap requests (list, get, search without filters, in turn) at a fixed rate, alone, then beside list searches (\`search=\`, expensive: they get admission's \`MAX_EXPENSIVE_IN_FLIGHT\` turns) at three times what that server answered 200 in a closed loop of 16 connections. Milliseconds from the moment each request was due.`,
    "",
    row(["PGlite on", "Run", "p50", "p90", "p99", "max", "Answers"]),
    row(["---", "---", "---:", "---:", "---:", "---:", "---"]),
  ];
  for (const { mode, result: o } of embedded.results) {
    lines.push(
      row([mode, `cheap at ${o.cheapRate}/s, alone`, ...latencyCells(o.cheapAlone)]),
      row([mode, "cheap, beside the flood", ...latencyCells(o.cheapMixed)]),
      row([
        mode,
        `list searches at ${o.expensiveRate}/s (capacity ${o.expensiveCapacity}/s)`,
        ...latencyCells(o.expensive),
      ]),
    );
  }
  lines.push("");
  return lines;
}

function renderIngest(ingest: IngestTable[], load: BenchResults["load"]): string[] {
  const lines = ["## Writes", ""];
  if (load) {
    lines.push(
      `\`npm run bench:data\` (${load.startedAt.slice(0, 16).replace("T", " ")} UTC, ${load.node}, \`${load.file}\`): ${number(load.rows)} rows in ${load.seconds} s, **${number(load.rowsPerSecond)} rows/s**, the kept counts recounted once at the end (server/store/kept-counts.ts) and the secondary indexes built after the rows (${load.indexSeconds} s more; VACUUM ANALYZE ${load.vacuumSeconds} s).`,
      "",
      row(["Table", "rows/s", "first tenth", "last tenth"]),
      row(["---", "---:", "---:", "---:"]),
      ...load.tables.map((table) =>
        row([table.table, number(table.rowsPerSecond), number(table.firstTenth), number(table.lastTenth)]),
      ),
      "",
    );
  }
  if (ingest.length) {
    const [first] = ingest;
    lines.push(
      `New rows written into the loaded tables as a live system writes them, every index and count trigger in place: ${number(first?.rows ?? 0)} rows per table in transactions of 1,000 (bulk), then ${number(first?.single.n ?? 0)} one per transaction at a fixed ${first?.singleRate ?? 0}/s (milliseconds from when each was due). **${postgresAloneName}**: the same rows through \`COPY\` (bulk) and a plain \`INSERT\` (one at a time) into a table of the same columns with its primary key only. The rows are deleted afterwards.`,
      "",
      row([
        "Table",
        "bulk rows/s",
        `${postgresAloneName} (COPY)`,
        "ratio",
        "one row p50",
        "p99",
        `${postgresAloneName} p50`,
        "p99",
        "one batch of 1,000 (EXPLAIN ANALYZE)",
      ]),
      row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---"]),
      ...ingest.map((table) =>
        row([
          table.table,
          number(table.bulkRowsPerSecond),
          number(table.aloneBulkRowsPerSecond),
          `${(table.bulkRowsPerSecond / (table.aloneBulkRowsPerSecond || 1)).toFixed(2)}×`,
          table.single.p50,
          table.single.p99,
          table.aloneSingle.p50,
          table.aloneSingle.p99,
          splitCell(table.split),
        ]),
      ),
      "",
    );
  }
  return lines;
}

/** "412 ms: rows and indexes 275, subscribers_search_gram_counts_insert 129, foreign keys 6, ..." */
function splitCell(split: IngestTable["split"]): string {
  const foreignKeys = split.triggers.filter((trigger) => trigger.name.endsWith("_fkey"));
  const parts = [
    { name: "rows and indexes", ms: split.rowsAndIndexes },
    ...split.triggers.filter((trigger) => !trigger.name.endsWith("_fkey")),
    { name: "foreign keys", ms: Math.round(foreignKeys.reduce((sum, trigger) => sum + trigger.ms, 0) * 10) / 10 },
  ].sort((a, b) => b.ms - a.ms);
  return `${split.total} ms: ${parts.map((part) => `${part.name} ${part.ms}`).join(", ")}`;
}

function renderProfiles(profiles: OperationProfile[]): string[] {
  return [
    "## Where each request's CPU goes",
    "",
    "Each operation alone, closed loop, against a server started with `node --cpu-prof`. CPU per request: the server process and every PostgreSQL process of this machine during the loop, from `/proc` (profiling slows the server a little, so read these beside each other, not against the throughput table). Shares: the server's main-thread profile samples in the loop's window, by the code they are in; *Node core* is Node's HTTP server, streams, timers and the socket writes under them. V8 times its samples by the wall clock, so the time a thread spends descheduled inside a socket write counts to the write: *Node core* overstates its share of the CPU (on two cores, `perf` counted the kernel at 13-16% of the main thread where this profile put 34-42% in `writev`; docs/decisions.md D65).",
    "",
    row(["Operation", "Node ms/request", "PostgreSQL ms/request", ...cpuCategories]),
    row(["---", "---:", "---:", ...cpuCategories.map(() => "---:")]),
    ...profiles.map((profile) =>
      row([
        profile.operation,
        profile.nodeMsPerRequest,
        profile.postgresMsPerRequest ?? "–",
        ...cpuCategories.map((category) => `${profile.shares[category]}%`),
      ]),
    ),
    "",
  ];
}

function renderCitus(c: CitusComparison): string[] {
  const times = (a: number, b: number) => (a > 0 ? `${(b / a).toFixed(2)}×` : "");
  const lines = [
    "## Past one machine: Citus beside single-node PostgreSQL",
    "",
    `Measured ${c.measuredAt.slice(0, 16).replace("T", " ")} UTC by \`npm run bench:citus\` (${c.node}): the same generated data, ${number(c.subscribers)} subscribers and ${number(c.notifications)} notifications, in a database of single-node PostgreSQL 15 and in one of a Citus 13.2 cluster (a coordinator and ${c.workers} workers, ${c.shards} shards a table, tables distributed by environment), every node on this machine's cores. Store level: ${c.settings.iterations} sequential runs per shape, milliseconds. Throughput: the server (production mode) on each database in turn, ${c.settings.connections} connections, ${c.settings.seconds} s, ${c.settings.repetitions} interleaved repetitions, medians; database CPU per request from /proc, the coordinator's apart from the workers'.`,
    "",
    row(["Shape", "PostgreSQL p50", "Citus p50", "Citus ÷ PostgreSQL", "PostgreSQL p99", "Citus p99"]),
    row(["---", "---:", "---:", "---:", "---:", "---:"]),
    ...c.store.map((shape) =>
      row([
        shape.label,
        shape.postgres.p50,
        shape.citus.p50,
        times(shape.postgres.p50, shape.citus.p50),
        shape.postgres.p99,
        shape.citus.p99,
      ]),
    ),
    "",
    row([
      "Operation",
      "PostgreSQL req/s",
      "Citus req/s",
      "Citus ÷ PostgreSQL",
      "PostgreSQL CPU ms/request",
      "coordinator ms",
      "workers ms",
    ]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ...c.throughput.map((entry) =>
      row([
        entry.operation,
        number(entry.postgres),
        number(entry.citus),
        times(entry.postgres, entry.citus),
        entry.cpu.postgres,
        entry.cpu.coordinator,
        entry.cpu.workers,
      ]),
    ),
    "",
    "Throughput per added worker, estimated from the CPU each request costs (every request runs on one worker, so the workers' share divides across them; the coordinator plans and routes every request, so its share does not):",
    "",
    row(["Operation", "requests/s one worker core adds", "ceiling of one coordinator core"]),
    row(["---", "---:", "---:"]),
    ...c.throughput.map((entry) =>
      row([
        entry.operation,
        entry.cpu.workers > 0 ? number(Math.round(1000 / entry.cpu.workers)) : "",
        entry.cpu.coordinator > 0 ? number(Math.round(1000 / entry.cpu.coordinator)) : "",
      ]),
    ),
    "",
  ];
  return lines;
}
