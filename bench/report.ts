/** The benchmark's results: their shape, the targets they are judged by, and the markdown table of RESULTS.md. */

import { cpuCategories } from "./cpu.js";
import type { StatementPlan } from "./explain.js";
import type { OverloadResult } from "./overload.js";
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

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  machine: { cpu: string; cores: number; memoryGb: number; os: string };
  node: string;
  /** The Node 24 that the throughput table's "server (Node 24)" column ran on. */
  node24?: string | undefined;
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
  targets: TargetResult[];
}

const validatedName = "server";
const node24Name = "server (Node 24)";
const unvalidatedName = "no validation";
const rawName = "raw node:http";
const prismName = "Prism mock";
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
    const on = row.medians[validatedName] ?? 0;
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
  const list = results.throughput.find((row) => row.operation === "list");
  if (list) {
    const ratio = (list.medians[validatedName] ?? 0) / (list.medians[prismName] || 1);
    targets.push({
      name: "server ≥ 5× Prism",
      goal: "the server on PostgreSQL serves at least 5× the Prism mock's requests/s on the same list request",
      measured: `${list.medians[validatedName]} vs ${list.medians[prismName]} req/s = ${ratio.toFixed(1)}×`,
      met: ratio >= 5,
    });
  }
  targets.push(...substringTargets(results), ...overloadTargets(results));
  return targets;
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
  const goals: Record<string, number> = { get: 1.5, search: 1.5, list: 1, patch: 1 };
  const ratios = results.throughput
    .filter((entry) => goals[entry.operation] !== undefined)
    .map((entry) => ({
      operation: entry.operation,
      goal: goals[entry.operation] as number,
      ratio: (entry.medians[validatedName] ?? 0) / (entry.medians[prismName] || 1),
    }));
  const aloneRatios = results.throughput
    .filter((entry) => entry.medians[postgresAloneName])
    .map((entry) => ({
      operation: entry.operation,
      ratio: (entry.medians[validatedName] ?? 0) / (entry.medians[postgresAloneName] || 1),
    }));
  if (aloneRatios.length) {
    out.push({
      name: "throughput against PostgreSQL alone",
      goal: "closed loop, 16 connections: every operation ≥ 0.7× the same database work from a plain loop",
      measured: aloneRatios.map((entry) => `${entry.operation} ${entry.ratio.toFixed(2)}×`).join(", "),
      met: aloneRatios.every((entry) => entry.ratio >= 0.7),
    });
  }
  out.push({
    name: "throughput against Prism",
    goal: "closed loop, 16 connections: get and search ≥ 1.5× the Prism mock, list and patch ≥ 1×",
    measured: ratios.map((entry) => `${entry.operation} ${entry.ratio.toFixed(2)}× (goal ${entry.goal}×)`).join(", "),
    met: ratios.every((entry) => entry.ratio >= entry.goal),
  });
  return out;
}

function overloadTargets(results: BenchResults): TargetResult[] {
  const o = results.overload;
  if (!o) return [];
  const answered = Object.entries(o.expensive.statuses).every(([status]) => status === "200" || status === "503");
  return [
    {
      name: "cheap p99 under overload ≤ 2×",
      goal: `cheap requests at ${o.cheapRate}/s keep their p99 within 2× of the run without expensive ones, beside "${o.expensiveLabel}" at 3× capacity`,
      measured: `${o.cheapMixed.p99} ms beside ${o.expensiveRate}/s vs ${o.cheapAlone.p99} ms alone = ${(o.cheapMixed.p99 / o.cheapAlone.p99).toFixed(2)}×`,
      met: o.cheapMixed.p99 <= 2 * o.cheapAlone.p99,
    },
    {
      name: "every expensive request answered in time",
      goal: `every expensive request answered 200 or 503 within the statement timeout (${o.timeoutMs} ms)`,
      measured: `${statusList(o.expensive.statuses)}; slowest ${o.expensive.max} ms`,
      met: answered && o.expensive.max <= o.timeoutMs,
    },
  ];
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
  const lines: string[] = [
    "# Benchmark results",
    "",
    `Generated by \`npm run bench\` on ${results.startedAt.slice(0, 16).replace("T", " ")} UTC (raw numbers: \`${file}\`).`,
    "Do not edit by hand: run `npm run bench:data` once, then `npm run bench`.",
    "",
    "## Machine and data",
    "",
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GiB, ${machine.os}; shared with other work, so read ratios, not absolutes.`,
    `- Node ${results.node}; ${database.version}, shared_buffers ${database.sharedBuffers}, on the same machine (loopback).`,
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
      "The embedded default, for comparison; it runs in the server's own thread, so these milliseconds are also time the server cannot serve other requests.",
      "",
      row(["Shape", "p50", "p90", "p99"]),
      row(["---", "---:", "---:", "---:"]),
      ...results.pglite.shapes.map((shape) => row([shape.label, shape.p50, shape.p90, shape.p99])),
      "",
    );
  }
  lines.push(
    "## HTTP level (server on PostgreSQL)",
    "",
    row(["Shape", "p50", "p90", "p99", "Errors"]),
    row(["---", "---:", "---:", "---:", "---:"]),
    ...results.http.map((shape) => row([shape.label, shape.p50, shape.p90, shape.p99, shape.errors])),
    "",
    "## Throughput (requests/s, closed loop)",
    "",
    `The same request to each target: the server with request validation (on ${results.node}, and on ${results.node24 ?? "Node 24"}, the current LTS), the same app without validation, raw \`node:http\` sending a captured answer of the same size (the ceiling of this machine), and the Prism mock. **${postgresAloneName}**: the store's calls for the same operation (the same statements, over a pool of the server's size and settings; the PATCH with its idempotency record, as the server runs it) from ${results.settings.connections} concurrent loops in the benchmark's process, with no HTTP: how much of each request is the database's.`,
    "",
    row([
      "Operation",
      validatedName,
      node24Name,
      unvalidatedName,
      rawName,
      prismName,
      postgresAloneName,
      "validation cost",
      "server ÷ Prism",
      `server ÷ ${postgresAloneName}`,
      "server ÷ ceiling",
    ]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ...results.throughput.map((entry) => {
      const m = entry.medians;
      const on = m[validatedName] ?? 0;
      const off = m[unvalidatedName] ?? 0;
      return row([
        entry.operation,
        number(on),
        number(m[node24Name] ?? 0),
        number(off),
        number(m[rawName] ?? 0),
        number(m[prismName] ?? 0),
        m[postgresAloneName] ? number(m[postgresAloneName]) : "–",
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
  if (results.overload) lines.push(...renderOverload(results.overload));
  if (results.startup) lines.push(...renderStartup(results.startup));
  return `${lines.join("\n")}\n`;
}

function renderOverload(o: OverloadResult): string[] {
  return [
    "## Overload (server on PostgreSQL, default settings)",
    "",
    `Cheap requests (list, get, search without filters, in turn) at a fixed ${o.cheapRate} requests/s, first alone, then beside "${o.expensiveLabel}" sent at ${o.expensiveRate}/s: three times the ${o.expensiveCapacity}/s the server answered 200 in a closed loop of 16 connections. Milliseconds from the moment each request was due.`,
    "",
    row(["Run", "p50", "p90", "p99", "max", "Answers"]),
    row(["---", "---:", "---:", "---:", "---:", "---"]),
    row([
      "cheap, alone",
      o.cheapAlone.p50,
      o.cheapAlone.p90,
      o.cheapAlone.p99,
      o.cheapAlone.max,
      statusList(o.cheapAlone.statuses),
    ]),
    row([
      "cheap, beside the flood",
      o.cheapMixed.p50,
      o.cheapMixed.p90,
      o.cheapMixed.p99,
      o.cheapMixed.max,
      statusList(o.cheapMixed.statuses),
    ]),
    row([
      "expensive flood",
      o.expensive.p50,
      o.expensive.p90,
      o.expensive.p99,
      o.expensive.max,
      statusList(o.expensive.statuses),
    ]),
    "",
  ];
}

function renderProfiles(profiles: OperationProfile[]): string[] {
  return [
    "## Where each request's CPU goes",
    "",
    "Each operation alone, closed loop, against a server started with `node --cpu-prof`. CPU per request: the server process and every PostgreSQL process of this machine during the loop, from `/proc` (profiling slows the server a little, so read these beside each other, not against the throughput table). Shares: the server's main-thread profile samples in the loop's window, by the code they are in; *Node core* is Node's HTTP server, streams, timers and the socket writes under them (native `writev` is most of it).",
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
