/**
 * The PATCH with an Idempotency-Key at once (D68: one call that claims the key, patches and stores the answer) beside
 * the same PATCH in a session (BEGIN, the claim, the UPDATE, the record, COMMIT), as the server ran it before:
 * `npm run bench:at-once`. The server's own database work without HTTP (bench/patch-as-server.ts), from 16 loops,
 * interleaved rounds on one database, medians; with the Node CPU each PATCH costs. On PGlite (in memory, its one
 * connection), PostgreSQL (the private cluster, or BENCH_DATABASE_URL's server) and Citus when its source is at hand.
 * Writes bench/AT-ONCE.md.
 */
import { writeFileSync } from "node:fs";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { DatabaseIdempotencyStore } from "../server/database-idempotency.js";
import { type OpenedStore, openStore } from "../server/store/store.js";
import { patchAsServer } from "./patch-as-server.js";
import { loadPatchTargets, withScratchCitus, withScratchPostgres } from "./patch-bench-databases.js";
import { median } from "./stats.js";
import { storeClosedLoop } from "./store-alone.js";

exitWithUsageIfAsked(
  "Usage: npm run bench:at-once -- [--no-citus]   (BENCH_AT_ONCE_SUBSCRIBERS, BENCH_AT_ONCE_SECONDS, BENCH_DATABASE_URL) writes bench/AT-ONCE.md",
);

const subscribers = Number(process.env.BENCH_AT_ONCE_SUBSCRIBERS ?? 20_000);
const seconds = Number(process.env.BENCH_AT_ONCE_SECONDS ?? 5);
const connections = 16;
const rounds = 5;
const ways = [
  { name: "at once (one call)", atOnce: true },
  { name: "in a session (five statements)", atOnce: false },
] as const;

interface Measured {
  perSecond: number;
  cpuMs: number;
}

let keys = 0;

async function round(store: OpenedStore, target: { environmentId: string; subscriberIds: string[] }, atOnce: boolean) {
  const idempotency = new DatabaseIdempotencyStore(store.store);
  const cpu = process.cpuUsage();
  const run = await storeClosedLoop(
    store.store,
    async (_store, n) => {
      // Spread over the table (7,919 is prime), and a name PATCH every fourth: the two kinds the benchmark sends.
      const subscriberId = target.subscriberIds[(n * 7919) % target.subscriberIds.length] as string;
      const body = n % 4 === 0 ? { lastName: `Once ${n}` } : { data: { plan: n % 2 ? "team" : "free", seats: n } };
      const outcome = await patchAsServer(
        idempotency,
        store.store,
        { environmentId: target.environmentId, subscriberId, body, key: `at-once-${process.pid}-${keys++}` },
        atOnce,
      );
      if (outcome.status !== 200) throw new Error(`a PATCH answered ${outcome.status}`);
    },
    { connections, seconds },
  );
  if (run.errors > 0) throw new Error(`${run.errors} PATCHes failed in a round`);
  const used = process.cpuUsage(cpu);
  const done = run.requestsPerSecond * seconds;
  return { perSecond: run.requestsPerSecond, cpuMs: (used.user + used.system) / 1000 / done };
}

async function compare(store: OpenedStore): Promise<Measured[]> {
  const target = await loadPatchTargets(store, subscribers);
  const runs: Measured[][] = ways.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [at, way] of ways.entries()) runs[at]?.push(await round(store, target, way.atOnce));
  }
  return runs.map((measured) => ({
    perSecond: median(measured.map((m) => m.perSecond)),
    cpuMs: median(measured.map((m) => m.cpuMs)),
  }));
}

const results: [string, Measured[]][] = [];
{
  const store = await openStore({ totalCountCap: 50_000 });
  try {
    results.push(["PGlite, in memory (one connection)", await compare(store)]);
  } finally {
    await store.close();
  }
}
console.log(results.at(-1));
results.push([
  "PostgreSQL, 16 connections",
  await withScratchPostgres("novu_bench_at_once", connections, (store) => compare(store)),
]);
console.log(results.at(-1));
if (!process.argv.includes("--no-citus")) {
  const citus = await withScratchCitus("novu_bench_at_once_citus", connections, (store) => compare(store));
  if (citus) results.push(["Citus, coordinator and two workers, 16 connections", citus]);
  console.log(results.at(-1));
}

const rows = results.map(([name, [atOnce, session]]) => {
  const a = atOnce as Measured;
  const s = session as Measured;
  return `| ${name} | ${a.perSecond.toFixed(0)} | ${s.perSecond.toFixed(0)} | ${(a.perSecond / s.perSecond).toFixed(2)}× | ${a.cpuMs.toFixed(3)} | ${s.cpuMs.toFixed(3)} |`;
});
writeFileSync(
  new URL("AT-ONCE.md", import.meta.url),
  `# The PATCH with an Idempotency-Key at once, beside it in a session

\`npm run bench:at-once\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}: ${subscribers.toLocaleString("en")} demo
subscribers, PATCHes of \`data\` (three in four) and of \`lastName\`, each with a new key, from ${connections} loops;
${rounds} interleaved rounds of ${seconds} s each way on one database, medians. The server's database work without HTTP
(bench/patch-as-server.ts); Node CPU is this process's (the driver and the store; on PGlite its thread's too) per PATCH. docs/decisions.md D68.

| Database | at once, PATCH/s | in a session, PATCH/s | ratio | at once, Node CPU ms | in a session, Node CPU ms |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}
`,
);
console.log(rows.join("\n"));
