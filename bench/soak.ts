/**
 * Soak: mixed traffic against a fresh reference server on loopback for a bounded time, reporting errors, p99 latency
 * and the server's resident memory over time. Usage: npm run soak -- --minutes 10 [--concurrency 16] [--database-url URL]
 * Writes bench/results/soak-<timestamp>.json and prints a table.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startServerProcess } from "../scripts/processes.js";
import { exitWithUsageIfAsked } from "../scripts/usage.js";

/** Resident memory of a process, in megabytes. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

exitWithUsageIfAsked("Usage: npm run soak -- --minutes N [--concurrency 16] [--database-url URL]");
const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "1" },
    concurrency: { type: "string", default: "16" },
    "database-url": { type: "string" },
    "sample-seconds": { type: "string", default: "10" },
  },
});
const minutes = Number(values.minutes);
if (!(minutes > 0 && minutes <= 120)) throw new Error("--minutes must be between 0 and 120");
const concurrency = Number(values.concurrency);
const sampleMs = Number(values["sample-seconds"]) * 1000;

const server = await startServerProcess({
  ...(values["database-url"] ? { DATABASE_URL: values["database-url"] } : {}),
  NODE_ENV: "production",
  // A soak needs data: the demo data and its public keys, on a throwaway database.
  SEED_DEMO_DATA: "true",
  ALLOW_DEMO_KEYS: "true",
  LOG_LEVEL: "warn",
});
const key = server.keys.Production as string;
const headers = { authorization: `ApiKey ${key}` };
const firstPage = (await (await fetch(`${server.baseUrl}/v1/notifications?limit=50`, { headers })).json()) as {
  data: { _id: string }[];
};
const notificationIds = firstPage.data.map((n) => n._id);
const subscriberPage = (await (await fetch(`${server.baseUrl}/v2/subscribers?limit=100`, { headers })).json()) as {
  data: { subscriberId: string; _id: string }[];
};
const subscribers = subscriberPage.data;

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const requests: (() => [string, RequestInit])[] = [
  () => [`/v1/notifications?limit=${pick([10, 25, 50])}&page=${pick([0, 1, 2, 5])}`, {}],
  () => [
    `/v1/notifications?channels=${pick(["email", "sms", "in_app", "chat", "push"])}&severity=${pick(["high", "none"])}`,
    {},
  ],
  () => [
    `/v2/subscribers?limit=${pick([10, 50])}&orderBy=${pick(["_id", "createdAt", "updatedAt"])}&orderDirection=${pick(["ASC", "DESC"])}`,
    {},
  ],
  () => [`/v2/subscribers?email=${pick(["example.com", "example.net", "a", "%"])}`, {}],
  () => [`/v2/subscribers?after=${pick(subscribers)._id}&limit=20`, {}],
  () => [`/v1/notifications/${pick(notificationIds)}`, {}],
  () => [
    `/v2/subscribers/${encodeURIComponent(pick(subscribers).subscriberId)}`,
    {
      method: "PATCH",
      body: JSON.stringify({ data: { soak: Date.now() } }),
      headers: { "content-type": "application/json", "idempotency-key": randomUUID() },
    },
  ],
];

interface Sample {
  atSeconds: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  rssMb: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const started = Date.now();
const deadline = started + minutes * 60_000;
const samples: Sample[] = [];
let window: number[] = [];
let windowErrors = 0;
let totalRequests = 0;
let totalErrors = 0;
const errorExamples: string[] = [];

async function worker() {
  while (Date.now() < deadline) {
    const [path, init] = (pick(requests) as () => [string, RequestInit])();
    const t0 = performance.now();
    try {
      const response = await fetch(server.baseUrl + path, {
        ...init,
        headers: { ...headers, ...(init.headers as object) },
      });
      await response.arrayBuffer();
      if (response.status >= 500 || (response.status >= 400 && response.status !== 404)) {
        windowErrors += 1;
        if (errorExamples.length < 10) errorExamples.push(`${response.status} ${path}`);
      }
    } catch (error) {
      windowErrors += 1;
      if (errorExamples.length < 10) errorExamples.push(`${(error as Error).message} ${path}`);
    }
    window.push(performance.now() - t0);
  }
}

const sampler = setInterval(() => {
  const sorted = window.sort((a, b) => a - b);
  const sample = {
    atSeconds: Math.round((Date.now() - started) / 1000),
    requests: sorted.length,
    errors: windowErrors,
    p50Ms: Math.round(percentile(sorted, 50) * 10) / 10,
    p99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
    rssMb: rssMb(server.child.pid as number),
  };
  samples.push(sample);
  totalRequests += sample.requests;
  totalErrors += sample.errors;
  process.stdout.write(
    `${String(sample.atSeconds).padStart(5)} s  ${String(sample.requests).padStart(7)} req  ${String(sample.errors).padStart(3)} errors  p50 ${sample.p50Ms} ms  p99 ${sample.p99Ms} ms  RSS ${sample.rssMb} MB\n`,
  );
  window = [];
  windowErrors = 0;
}, sampleMs);

process.stdout.write(
  `Soak: ${minutes} min, ${concurrency} concurrent clients, against ${server.baseUrl} (${values["database-url"] ? "PostgreSQL" : "PGlite in memory"})\n`,
);
await Promise.all(Array.from({ length: concurrency }, worker));
clearInterval(sampler);
await server.stop();

const steady = samples.slice(Math.floor(samples.length / 5));
const rss = steady.map((s) => s.rssMb);
const summary = {
  date: new Date().toISOString(),
  minutes,
  concurrency,
  database: values["database-url"] ? "postgres" : "pglite",
  requests: totalRequests,
  errors: totalErrors,
  errorExamples,
  requestsPerSecond: Math.round(totalRequests / (minutes * 60)),
  worstP99Ms: Math.max(...samples.map((s) => s.p99Ms)),
  rssMb: { afterWarmUp: rss[0], min: Math.min(...rss), max: Math.max(...rss), end: rss.at(-1) },
  samples,
};
const file = `bench/results/soak-${summary.date.replace(/[:.]/g, "-")}.json`;
writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
process.stdout.write(
  `\n${totalRequests} requests, ${totalErrors} errors, ${summary.requestsPerSecond} req/s, worst p99 ${summary.worstP99Ms} ms, ` +
    `RSS after warm-up ${summary.rssMb.afterWarmUp} MB, range ${summary.rssMb.min}-${summary.rssMb.max} MB, end ${summary.rssMb.end} MB\nWritten to ${file}\n`,
);
process.exitCode = totalErrors > 0 ? 1 : 0;
