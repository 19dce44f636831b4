/**
 * Where a request's CPU goes: the CPU time of processes from /proc (the server, and PostgreSQL's processes on this
 * machine), and a V8 CPU profile's self time by what the code belongs to (Express, the validator, logging, the
 * database driver, our code, Node's own HTTP, streams and timers, garbage collection). JSON.parse and JSON.stringify
 * are V8 builtins that the profile counts in their callers (the driver's row parser, Express's res.json).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** User + system CPU of one process so far, in milliseconds (undefined once it is gone). */
export function processCpuMs(pid: number): number | undefined {
  try {
    // The fields after the command name, which may hold spaces, start after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/** CPU of every PostgreSQL process on this machine so far (postmaster, backends, background workers), in ms. */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
    } catch {
      continue;
    }
    total += processCpuMs(Number(entry)) ?? 0;
  }
  return total;
}

/** The categories a profile's self time is split into, in the order RESULTS.md shows them. */
export const cpuCategories = [
  "Express",
  "validation",
  "logging",
  "database driver",
  "our code",
  "Node core",
  "garbage collection",
  "other",
] as const;
export type CpuCategory = (typeof cpuCategories)[number];

const packageCategory: [RegExp, CpuCategory][] = [
  [/^(express-openapi-validator|ajv|ajv-formats|fast-uri|fast-deep-equal|json-schema-traverse)$/, "validation"],
  [
    /^(express|router|body-parser|raw-body|finalhandler|send|serve-static|qs|content-type|type-is|mime-types|mime-db|on-finished|statuses|depd|debug|ms|path-to-regexp|accepts|negotiator|encodeurl|escape-html|parseurl|etag|fresh|range-parser|vary|cookie|iconv-lite|http-errors|setprototypeof|forwarded|proxy-addr|ipaddr\.js|merge-descriptors|utils-merge|media-typer|bytes|unpipe|destroy|call-bound|side-channel.*|get-intrinsic|es-.*|math-intrinsics|function-bind|has-symbols|hasown|dunder-proto|gopd|safer-buffer|safe-buffer|inherits|toidentifier|content-disposition|cors|object-assign)$/,
    "Express",
  ],
  [
    /^(pino.*|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|on-exit-leak-free|atomic-sleep|real-require|safe-stable-stringify|process-warning)$/,
    "logging",
  ],
  [/^(pg|pg-.*|postgres-.*|pgpass|split2|kysely|buffer-writer|packet-reader)$/, "database driver"],
];

/** The category of one profile node, by the file its function is in (or its name, for V8's own entries). */
export function categoryOf(url: string, functionName: string): CpuCategory | "idle" {
  if (functionName === "(idle)") return "idle";
  if (functionName === "(garbage collector)") return "garbage collection";
  if (url.includes("/novu-query/server-build/") || /\/(server|scripts)\/[^/]+\.(ts|js|mjs)$/.test(url)) {
    return "our code";
  }
  const name = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1];
  if (name) return packageCategory.find(([pattern]) => pattern.test(name))?.[1] ?? "other";
  if (url.startsWith("node:")) return "Node core";
  // V8 builtins and native calls with no file (writev, write, ...) are Node's I/O under the HTTP server.
  if (url === "" && functionName !== "(program)") return "Node core";
  return "other";
}

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  /** Microseconds of the monotonic clock (CLOCK_MONOTONIC on Linux, the clock of `process.hrtime`). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The monotonic clock in microseconds, as profiles time their samples, to mark a window of a run. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * The busy time (everything but idle) of a profile's samples within [from, to] (monotonic microseconds), in ms, and
 * each category's share of it in percent.
 */
export function profileSplit(
  profile: CpuProfile,
  from = Number.NEGATIVE_INFINITY,
  to = Number.POSITIVE_INFINITY,
): { busyMs: number; shares: Record<CpuCategory, number> } {
  const categoryOfNode = new Map(
    profile.nodes.map((node) => [node.id, categoryOf(node.callFrame.url, node.callFrame.functionName)]),
  );
  const micros = new Map<CpuCategory, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const category = categoryOfNode.get(id) ?? "other";
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (category === "idle" || at < from || at > to) return;
    busy += delta;
    micros.set(category, (micros.get(category) ?? 0) + delta);
  });
  const shares = Object.fromEntries(
    cpuCategories.map((category) => [
      category,
      busy === 0 ? 0 : Math.round(((micros.get(category) ?? 0) / busy) * 1000) / 10,
    ]),
  ) as Record<CpuCategory, number>;
  return { busyMs: Math.round(busy / 1000), shares };
}

/**
 * CPU of one PostgreSQL server so far, in ms: its postmaster (the first line of `<dataDir>/postmaster.pid`) and every
 * process it started (backends, background workers). Tells the nodes of a Citus cluster apart on one machine.
 */
export function serverCpuMs(dataDir: string): number {
  const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0]);
  let total = processCpuMs(postmaster) ?? 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === postmaster) total += processCpuMs(Number(entry)) ?? 0;
    } catch {
      // gone since the listing
    }
  }
  return total;
}
