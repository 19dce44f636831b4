/**
 * PATCHes that change names (every other one an e-mail's domain too), from 16 connections at once (`npm run
 * bench:names`): what the kept gram and domain counts cost when
 * each connection writes rows of its own (migration 007) beside the same database writing one row per gram, as
 * before it (its `kept_count_slot()` made to answer one slot to every connection: the same statements and rows, the one
 * shared row per gram and its lock), switched between interleaved rounds on one database, so that nothing but the
 * design differs; medians and ratios. On PostgreSQL (the private cluster, or BENCH_DATABASE_URL's server) and PGlite
 * (one connection, so no lock to share). Store calls in one transaction with the idempotency record, as the server
 * and the benchmark's "PostgreSQL alone" column run a PATCH.
 * Writes bench/NAME-PATCH.md.
 */
import { writeFileSync } from "node:fs";
import { sql } from "kysely";
import pg from "pg";
import { parseWorkers, urlOf } from "../scripts/citus-database.js";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { DatabaseIdempotencyStore } from "../server/database-idempotency.js";
import { type OpenedStore, openStore } from "../server/store/store.js";
import { patchAsServer } from "./patch-as-server.js";
import { loadPatchTargets, withScratchCitus, withScratchPostgres } from "./patch-bench-databases.js";
import { median, summarize } from "./stats.js";
import { storeClosedLoop } from "./store-alone.js";

exitWithUsageIfAsked(
  "Usage: npm run bench:names -- [--no-citus]   (BENCH_NAME_SUBSCRIBERS, BENCH_NAME_SECONDS, BENCH_DATABASE_URL) writes bench/NAME-PATCH.md",
);

const subscribers = Number(process.env.BENCH_NAME_SUBSCRIBERS ?? 20_000);
const connections = 16;
const seconds = Number(process.env.BENCH_NAME_SECONDS ?? 5);
const rounds = 5;

// First names that share their grams ("an", "na", "a", "e"), as real ones do.
const domains = ["mail.example", "post.example", "inbox.example"];
const names = [
  "Anna",
  "Hanna",
  "Joanna",
  "Diana",
  "Ana",
  "Jana",
  "Nana",
  "Ivana",
  "Johanna",
  "Susanna",
  "Anne",
  "Jane",
];

interface Target {
  store: OpenedStore;
  environmentId: string;
  subscriberIds: string[];
  /** The PostgreSQL database, whose backends are sampled for lock waits. */
  databaseName?: string;
  /** The one slot the load's recount wrote the counts to. */
  loadedSlot: number;
}

/** The two designs, as the one function that picks a count's row says: the connection's slot, or 0 for all. */
const designs = [
  { name: "rows per connection", slot: () => "(pg_backend_pid() % 64)::smallint" },
  // Every connection on the slot the load's recount wrote: one row per count, as before migration 007.
  { name: "one row per count", slot: (target: Target) => `${target.loadedSlot}::smallint` },
] as const;

async function switchDesign(target: Target, design: (typeof designs)[number]): Promise<void> {
  await sql`CREATE OR REPLACE FUNCTION kept_count_slot() RETURNS smallint LANGUAGE sql STABLE PARALLEL RESTRICTED
    AS ${sql.lit(`SELECT ${design.slot(target)}`)}`.execute(target.store.store.db);
}

async function prepare(store: OpenedStore, databaseName?: string): Promise<Target> {
  const targets = await loadPatchTargets(store, subscribers);
  const slots = await sql<{ slot: number }>`SELECT DISTINCT slot FROM subscriber_search_gram_counts`.execute(
    store.store.db,
  );
  if (slots.rows.length !== 1) throw new Error(`the load wrote the counts to ${slots.rows.length} slots, not one`);
  return { store, ...targets, databaseName, loadedSlot: Number(slots.rows[0]?.slot) };
}

/** A name PATCH (every other one an e-mail's domain too), run as the server runs it: one transaction with its key. */
function namePatch(target: Target, idempotency: DatabaseIdempotencyStore) {
  return async () => {
    // Counted across rounds, so that no PATCH repeats a value a subscriber has (a PATCH that changes nothing writes
    // nothing: one run measured no-ops, and no lock, in both layouts).
    const n = patches++;
    const id = target.subscriberIds[n % target.subscriberIds.length] as string;
    const name = names[n % names.length] as string;
    const body =
      n % 2 === 0
        ? { firstName: `${name} ${n}` }
        : { firstName: `${name} ${n}`, email: `${name.toLowerCase()}.${n}@${domains[n % domains.length]}` };
    await patchAsServer(idempotency, target.store.store, {
      environmentId: target.environmentId,
      subscriberId: id,
      body,
      key: `names-${process.pid}-${keys++}`,
    });
  };
}

/** Name PATCHes from `loops` loops for `seconds`; the share of sampled active backends that waited for a lock. */
async function round(target: Target, loops: number, samplers: pg.Client[]) {
  let active = 0;
  let waiting = 0;
  let sampling = true;
  const sample = async () => {
    while (samplers.length > 0 && sampling) {
      for (const sampler of samplers) {
        const { rows } = await sampler.query<{ active: string; waiting: string }>(
          `SELECT count(*) AS active, count(*) FILTER (WHERE wait_event_type = 'Lock') AS waiting
           FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
          [target.databaseName],
        );
        active += Number(rows[0]?.active);
        waiting += Number(rows[0]?.waiting);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const sampled = sample();
  const run = await storeClosedLoop(
    target.store.store,
    namePatch(target, new DatabaseIdempotencyStore(target.store.store)),
    { connections: loops, seconds },
  );
  sampling = false;
  await sampled;
  if (run.errors > 0) throw new Error(`${run.errors} name PATCHes failed in a round`);
  return {
    perSecond: run.requestsPerSecond,
    p99: summarize(run.latenciesMs).p99,
    waitingShare: active === 0 ? 0 : waiting / active,
  };
}

let keys = 0;
let patches = 0;

const onPostgres = () =>
  withScratchPostgres("novu_bench_names", connections, async (store, admin) =>
    compare(await prepare(store, "novu_bench_names"), connections, [admin]),
  );

async function onPglite(): Promise<Awaited<ReturnType<typeof compare>>> {
  const store = await openStore({ totalCountCap: 50_000 });
  try {
    return await compare(await prepare(store), 1, []);
  } finally {
    await store.close();
  }
}

/** Interleaved rounds of both designs on one database (its kept-count function switched between rounds): medians. */
async function compare(target: Target, loops: number, samplers: pg.Client[]) {
  const runs: { perSecond: number; p99: number; waitingShare: number }[][] = [[], []];
  const slotsWritten: number[][] = [[], []];
  for (let r = 0; r < rounds; r++) {
    for (const [at, design] of designs.entries()) {
      await switchDesign(target, design);
      const before = await slotDigests(target);
      runs[at]?.push(await round(target, loops, samplers));
      slotsWritten[at]?.push(changedSlots(before, await slotDigests(target)));
    }
  }
  await switchDesign(target, designs[0]);
  // The designs did what they say: one slot written by every connection, or more than one.
  if (slotsWritten[1]?.some((slots) => slots !== 1)) {
    throw new Error(`"one row per count" rounds wrote ${slotsWritten[1]?.join(", ")} slots, not one each`);
  }
  if (loops > 1 && slotsWritten[0]?.some((slots) => slots < 2)) {
    throw new Error(`"rows per connection" rounds wrote ${slotsWritten[0]?.join(", ")} slots`);
  }
  return designs.map((design, at) => ({
    name: design.name,
    perSecond: median((runs[at] ?? []).map((run) => run.perSecond)),
    p99: median((runs[at] ?? []).map((run) => run.p99)),
    waitingShare: median((runs[at] ?? []).map((run) => run.waitingShare)),
  }));
}

/** A digest of each slot's counts, to tell which slots a round wrote. */
async function slotDigests(target: Target): Promise<Map<number, string>> {
  const { rows } = await sql<{ slot: number; digest: string }>`
    SELECT slot, md5(string_agg(searched || ' ' || gram || ' ' || live, ',' ORDER BY searched, gram)) AS digest
    FROM subscriber_search_gram_counts GROUP BY slot`.execute(target.store.store.db);
  return new Map(rows.map((row) => [Number(row.slot), row.digest]));
}

function changedSlots(before: Map<number, string>, after: Map<number, string>): number {
  return [...after].filter(([slot, digest]) => before.get(slot) !== digest).length;
}

/**
 * On Citus, when its source is at hand. The counts are written on the workers, so their backends are the ones sampled
 * (with the coordinator's).
 */
const onCitus = () =>
  withScratchCitus("novu_bench_names_citus", connections, async (store, { url, workers }) => {
    const databaseName = "novu_bench_names_citus";
    const samplers = [url, ...parseWorkers(workers).map(({ host, port }) => urlOf(url, host, port, databaseName))].map(
      (connectionString) => new pg.Client({ connectionString }),
    );
    for (const sampler of samplers) await sampler.connect();
    try {
      return await compare(await prepare(store, databaseName), connections, samplers);
    } finally {
      for (const sampler of samplers) await sampler.end();
    }
  });

const postgresResults = await onPostgres();
const pgliteResults = await onPglite();
const citusResults = process.argv.includes("--no-citus") ? undefined : await onCitus();

const row = (driver: string, results: typeof postgresResults, waits: boolean) => {
  const [now, before] = results as [(typeof results)[0], (typeof results)[0]];
  const share = (value: number) => (waits ? `${Math.round(value * 100)}%` : "n/a");
  return `| ${driver} | ${now.perSecond.toFixed(0)} | ${before.perSecond.toFixed(0)} | **${(now.perSecond / before.perSecond).toFixed(2)}×** | ${now.p99.toFixed(1)} | ${before.p99.toFixed(1)} | ${share(now.waitingShare)} | ${share(before.waitingShare)} |`;
};
const report = `# Name and e-mail PATCHes and the kept counts

\`npm run bench:names\` (bench/name-patch.ts), ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node},
${subscribers.toLocaleString("en-US")} demo subscribers. PATCHes of \`firstName\` (names that share their grams), every other
one with an \`email\` in another of three domains, each run as the server runs a PATCH (one transaction with its
idempotency key's lock and stored answer); ${rounds} interleaved rounds of ${seconds} s per design on one database, medians.
"Rows per connection" is migration 007: each connection writes the gram and domain counts to rows of its own slot.
"One row per count" is the same database with \`kept_count_slot()\` answering every connection the slot the load's
recount wrote: one row per gram and per domain, and its lock, as before migration 007. PGlite's one connection
writes one slot in both, so there the two are the same design.

| database | rows per connection (PATCH/s) | one row per count (PATCH/s) | ratio | p99 ms, rows per connection | p99 ms, one row per count | backends waiting for a lock, rows per connection | one row per count |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${row(`PostgreSQL, ${connections} connections`, postgresResults, true)}
${row("PGlite, one connection", pgliteResults, false)}
${citusResults ? row(`Citus, coordinator and 2 workers, ${connections} connections`, citusResults, true) : "| Citus | not measured: no Citus source here (scripts/citus.sh source) | | | | | | |"}

Share of waiting backends: sampled from \`pg_stat_activity\` every 20 ms during the rounds (active backends whose
\`wait_event_type\` is \`Lock\`). PGlite has one connection: nothing to wait for.
`;
writeFileSync(new URL("./NAME-PATCH.md", import.meta.url), report);
console.log(report);
