/**
 * Every setting of the reference server, declared once: its environment variable, how it is read, its default and
 * what it means. `loadConfig` reads them, `Config` is their type, and the settings table of docs/server.md is
 * rendered from them by `npm run build` (scripts/settings-table.ts).
 */
import { availableParallelism } from "node:os";
import { defaultSnapshotDir } from "./demo/snapshot.js";

type Env = Record<string, string | undefined>;
/** The settings read before this one (a default may follow from them). */
type Earlier = Readonly<Record<string, unknown>>;

export interface Setting<T> {
  /** The environment variable. */
  variable: string;
  /** The default, as the settings table shows it (Markdown). */
  shown: string;
  /** What it does, as the settings table says it (Markdown). */
  meaning: string;
  read(raw: string | undefined, variable: string, earlier: Earlier): T;
}

const unset = (raw: string | undefined) => raw === undefined || raw === "";
type Fallback<T> = T | ((earlier: Earlier) => T);
const fallbackOf = <T>(fallback: Fallback<T>, earlier: Earlier): T =>
  typeof fallback === "function" ? (fallback as (earlier: Earlier) => T)(earlier) : fallback;

function integer(fallback: Fallback<number>, min: number, max = Number.MAX_SAFE_INTEGER): Setting<number>["read"] {
  return (raw, variable, earlier) => {
    if (unset(raw)) return fallbackOf(fallback, earlier);
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${variable} must be a whole number from ${min} to ${max}, not "${raw}"`);
    }
    return value;
  };
}

function boolean(fallback: Fallback<boolean>): Setting<boolean>["read"] {
  return (raw, variable, earlier) => {
    const value = raw?.toLowerCase();
    if (value === undefined || value === "") return fallbackOf(fallback, earlier);
    if (["1", "true", "yes", "on"].includes(value)) return true;
    if (["0", "false", "no", "off"].includes(value)) return false;
    throw new Error(`${variable} must be true or false, not "${raw}"`);
  };
}

function oneOf<T extends string>(choices: readonly T[], fallback: Fallback<T>): Setting<T>["read"] {
  return (raw, variable, earlier) => {
    if (unset(raw)) return fallbackOf(fallback, earlier);
    if ((choices as readonly string[]).includes(raw as string)) return raw as T;
    throw new Error(`${variable} must be one of ${choices.join(", ")}, not "${raw}"`);
  };
}

const text =
  (fallback: string): Setting<string>["read"] =>
  (raw) =>
    unset(raw) ? fallback : (raw as string);
const optionalText: Setting<string | undefined>["read"] = (raw) => (unset(raw) ? undefined : raw);
/** A count of days where 0 (the default) means none: undefined. */
const optionalDays: Setting<number | undefined>["read"] = (raw, variable, earlier) =>
  integer(0, 0)(raw, variable, earlier) || undefined;

const setting = <T>(declared: Setting<T>): Setting<T> => declared;

/**
 * The default of MAX_EXPENSIVE_IN_FLIGHT: a quarter of the turns, and no more than half the cores. An expensive search
 * keeps one PostgreSQL backend busy for tens of milliseconds; two of them at once on two cores left cheap requests
 * waiting for the CPU: on the benchmark's 2 cores, their p99 beside a flood of such searches was 72-230 ms with two at
 * once and 47-84 ms with one (10-31 ms alone; D50).
 */
export function expensiveTurns(maxInFlight: number, cores: number): number {
  return Math.max(1, Math.min(Math.floor(maxInFlight / 4), Math.floor(cores / 2)));
}

export const settings = {
  port: setting({
    variable: "PORT",
    shown: "`3000`",
    meaning: "port to listen on (`0`: any free port)",
    read: integer(3000, 0, 65535),
  }),
  host: setting({
    variable: "HOST",
    shown: "`127.0.0.1`",
    meaning: "address to listen on (`0.0.0.0` in a container)",
    read: text("127.0.0.1"),
  }),
  databaseUrl: setting({
    variable: "DATABASE_URL",
    shown: "unset",
    meaning:
      "a PostgreSQL connection string (a Citus coordinator's too: the first start distributes the tables); when unset, PGlite runs in-process",
    read: optionalText,
  }),
  databaseReadUrl: setting({
    variable: "DATABASE_READ_URL",
    shown: "unset",
    meaning:
      "a streaming read replica of `DATABASE_URL`: searches, lists, gets and key lookups go there, writes stay on the primary",
    read: optionalText,
  }),
  poolSize: setting({
    variable: "DATABASE_POOL_SIZE",
    shown: "`10`",
    meaning: "PostgreSQL connections per server process (per pool: primary and replica each)",
    read: integer(10, 1, 1000),
  }),
  dataDir: setting({
    variable: "DATA_DIR",
    shown: "unset",
    meaning: "PGlite only: keep the database in this directory; when unset, it lives in memory and is gone at exit",
    read: optionalText,
  }),
  production: setting({
    variable: "NODE_ENV",
    shown: "unset",
    meaning:
      "`production` turns response validation and the demo data off by default, and refuses the public demo keys",
    read: (raw) => raw === "production",
  }),
  trustProxy: setting({
    variable: "TRUST_PROXY",
    shown: "unset (off)",
    meaning:
      "Express's `trust proxy` (`true`, a number of hops, or addresses): behind a load balancer, which `X-Forwarded-For` names the client, whom unknown keys are limited by (a key that authenticated in the last minute is never held back by its address)",
    read: (raw): boolean | number | string => {
      const value = (raw ?? "").trim();
      if (value === "" || value === "false") return false;
      if (value === "true") return true;
      return /^\d+$/.test(value) ? Number(value) : value;
    },
  }),
  pgliteThread: setting({
    variable: "PGLITE_THREAD",
    shown: "`true`",
    meaning:
      'run PGlite on a worker thread, so that a slow statement does not stop the server (admission keeps refusing with 503, cheap requests keep their latency: [bench/RESULTS.md](../bench/RESULTS.md), "Overload on the embedded default"); `false` runs it on the server\'s thread',
    read: boolean(true),
  }),
  seedDemoData: setting({
    variable: "SEED_DEMO_DATA",
    shown: "`true`, `false` in production",
    meaning: "load the demo data when the store holds no environment yet",
    read: boolean((earlier) => !earlier.production),
  }),
  allowDemoKeys: setting({
    variable: "ALLOW_DEMO_KEYS",
    shown: "`false`",
    meaning:
      "with `NODE_ENV=production`, start although the store holds the public demo keys (a public demo); otherwise such a start is refused: `keys revoke-demo` removes them",
    read: boolean(false),
  }),
  demoSubscribers: setting({
    variable: "DEMO_SUBSCRIBERS",
    shown: "`1000`",
    meaning: "subscribers of the demo data",
    read: integer(1000, 0),
  }),
  demoNotifications: setting({
    variable: "DEMO_NOTIFICATIONS",
    shown: "`5000`",
    meaning: "notifications of the demo data",
    read: integer(5000, 0),
  }),
  demoSnapshots: setting({
    variable: "DEMO_SNAPSHOTS",
    shown: "`true`",
    meaning:
      "PGlite in memory with demo data only: keep a start-up snapshot of the demo database, so that a start copies it instead of generating the data (see [Demo data](#demo-data))",
    read: boolean(true),
  }),
  demoSnapshotDir: setting({
    variable: "DEMO_SNAPSHOT_DIR",
    shown: "`node_modules/.cache/novu-query/demo-snapshots` (the OS temp dir when there is no `node_modules`)",
    meaning: "where the snapshots are kept",
    read: (raw, _variable, earlier): string | undefined =>
      earlier.demoSnapshots ? (unset(raw) ? defaultSnapshotDir() : raw) : undefined,
  }),
  logLevel: setting({
    variable: "LOG_LEVEL",
    shown: "`info`",
    meaning:
      "pino log level (`debug`, `info`, `warn`, `error`, `silent`); the JSON ready line is written at every level; `info` and below write one line a request, which adds about a sixth to the CPU a request takes (docs/performance.md): `warn` where a proxy logs them",
    read: text("info"),
  }),
  validateResponses: setting({
    variable: "VALIDATE_RESPONSES",
    shown: "`true` (`false` in production)",
    meaning: "check every response against the spec; a mismatch is logged as a 500",
    read: boolean((earlier) => !earlier.production),
  }),
  totalCountCap: setting({
    variable: "TOTAL_COUNT_CAP",
    shown: "`50000`",
    meaning: "subscriber search stops counting here and reports `totalCountCapped: true`",
    read: integer(50_000, 1),
  }),
  bodyLimitBytes: setting({
    variable: "BODY_LIMIT_BYTES",
    shown: "`102400`",
    meaning: "largest request body (413 above it)",
    read: integer(100 * 1024, 1),
  }),
  idempotencyTtlSeconds: setting({
    variable: "IDEMPOTENCY_TTL_SECONDS",
    shown: "`86400`",
    meaning: "how long a PATCH answer is kept for replay",
    read: integer(24 * 60 * 60, 1),
  }),
  idempotencyMaxBytesPerEnvironment: setting({
    variable: "IDEMPOTENCY_MAX_MB_PER_ENVIRONMENT",
    shown: "`50`",
    meaning:
      "stored PATCH answers an environment keeps for replay, in megabytes; past it the oldest are deleted (checked every twentieth of it), and a retry with a deleted key is applied again: a PATCH whose values are already there changes nothing (no `__v` bump)",
    read: (raw, variable, earlier) => integer(50, 1)(raw, variable, earlier) * 1024 * 1024,
  }),
  apiKeyCacheSeconds: setting({
    variable: "API_KEY_CACHE_SECONDS",
    shown: "`30`",
    meaning:
      "how long a process remembers a key's environment (`0`: look it up every request); a deleted key or a changed retention takes effect within it; an unknown key is remembered for 5 s (a new key tried before it existed works within them)",
    read: integer(30, 0, 3600),
  }),
  purgeAfterDays: setting({
    variable: "PURGE_AFTER_DAYS",
    shown: "unset (keep all)",
    meaning:
      "drop notifications older than this, a whole month at a time (one partition); keep it at or above every retention",
    read: optionalDays,
  }),
  defaultRetentionDays: setting({
    variable: "RETENTION_DAYS",
    shown: "unset (unlimited)",
    meaning: "notification history an environment may read when it has no retention of its own",
    read: optionalDays,
  }),
  rateLimitStore: setting({
    variable: "RATE_LIMIT_STORE",
    shown: "`database` with `DATABASE_URL`, else `memory`",
    meaning:
      "where the token buckets live: `database` (one row per key in the UNLOGGED table `rate_limit_buckets`, taken in one atomic statement) gives a key its rate once across every instance on one PostgreSQL; `memory` keeps them in the process (PGlite, or one instance)",
    read: oneOf(["memory", "database"] as const, (earlier) => (earlier.databaseUrl ? "database" : "memory")),
  }),
  rateLimitPerMinute: setting({
    variable: "RATE_LIMIT_PER_MINUTE",
    shown: "`0` (off)",
    meaning:
      'token bucket per API key; answers carry `RateLimit-Limit`, `-Remaining`, `-Reset` and `RateLimit-Policy` in Novu\'s seven parts (`60;w=60;burst=60;comment="token bucket";category="global";cost="single";serviceLevel="unlimited"`, category `configuration` for subscribers); unknown keys are limited per client address at the same rate (429 with `Retry-After` past it, before any lookup)',
    read: integer(0, 0),
  }),
  rateLimitBurst: setting({
    variable: "RATE_LIMIT_BURST",
    shown: "the per-minute rate",
    meaning: "how many requests a key may make at once before the per-minute rate applies",
    read: integer((earlier) => earlier.rateLimitPerMinute as number, 0),
  }),
  corsOrigins: setting({
    variable: "CORS_ORIGINS",
    shown: "empty (off); `*` for the stateful mock (`novu-query-server mock`)",
    meaning:
      "origins allowed to call the API from a browser, comma-separated; `*` for any. The start-up banner prints the policy in force",
    read: (raw) =>
      (raw ?? "")
        .split(",")
        .map((origin) => origin.trim())
        .filter(Boolean),
  }),
  requestTimeoutMs: setting({
    variable: "REQUEST_TIMEOUT_MS",
    shown: "`30000`",
    meaning: "receiving a request slower than this is 408; answering slower, 503",
    read: integer(30_000, 100),
  }),
  shutdownTimeoutMs: setting({
    variable: "SHUTDOWN_TIMEOUT_MS",
    shown: "`10000`",
    meaning:
      "after SIGTERM or SIGINT, how long requests in flight may finish; the process has ended by then, whatever its database does (a stuck one is stopped as a kill -9 would, and recovers at the next start)",
    read: integer(10_000, 100),
  }),
  headersTimeoutMs: setting({
    variable: "HEADERS_TIMEOUT_MS",
    shown: "`10000` (or `REQUEST_TIMEOUT_MS`, if lower)",
    meaning: "a request head (or a connection that sends nothing) slower than this is 408 and closed",
    read: integer((earlier) => Math.min(10_000, earlier.requestTimeoutMs as number), 100),
  }),
  keepAliveTimeoutMs: setting({
    variable: "KEEP_ALIVE_TIMEOUT_MS",
    shown: "`5000`",
    meaning:
      "an idle keep-alive connection is closed after this long, the time its answers advertise in `Keep-Alive: timeout` (Node holds the socket one second more, so a client reusing it at the edge is not reset)",
    read: integer(5000, 100),
  }),
  writeStallTimeoutMs: setting({
    variable: "WRITE_STALL_TIMEOUT_MS",
    shown: "`30000`",
    meaning:
      "an answer the client stops reading is dropped, and its connection closed, after this long without progress",
    read: integer(30_000, 100),
  }),
  maxConnections: setting({
    variable: "MAX_CONNECTIONS",
    shown: "`10000`",
    meaning:
      "open connections per process; a new one past it is answered 503 with `Retry-After` (keep it under the process's descriptor limit, `ulimit -n`)",
    read: integer(10_000, 1),
  }),
  preparedStatements: setting({
    variable: "PREPARED_STATEMENTS",
    shown: "`true`",
    meaning:
      "lookups by key (a notification by id, a subscriber by subscriberId, the PATCH, API keys, idempotency records, rate-limit buckets) run as prepared statements, planned once per connection; the list with no filter but its window, and the subscriber search with no filter, run on their generic plans (D46, D56; not on Citus); filtered searches and lists are planned for their values each time. Named statements on PostgreSQL, SQL `PREPARE` on PGlite. `false` for a pooler that cannot keep prepared statements (PgBouncer before 1.21 in transaction mode)",
    read: boolean(true),
  }),
  gramMergeIntervalMs: setting({
    variable: "GRAM_MERGE_INTERVAL_MS",
    shown: "`250`",
    meaning:
      "PostgreSQL only: how often the server merges the substring filters' pending index entries (left by PATCHes) into their indexes, so that no PATCH does it inside its request; `0`: never (the database's role must own the indexes, as it does when the server ran the migrations)",
    read: integer(250, 0),
  }),
  statementTimeoutMs: setting({
    variable: "STATEMENT_TIMEOUT_MS",
    shown: "`5000`",
    meaning:
      "PostgreSQL only: a statement running longer is cancelled, its request answered 503 with `Retry-After` and rolled back; `0`: no limit",
    read: integer(5000, 0),
  }),
  maxInFlight: setting({
    variable: "MAX_IN_FLIGHT",
    shown: "the pool size",
    meaning: "requests doing database work at once per process; beyond it and its queue: 503 with `Retry-After: 1`",
    read: integer((earlier) => earlier.poolSize as number, 1),
  }),
  maxQueued: setting({
    variable: "MAX_QUEUED",
    shown: "4 × `MAX_IN_FLIGHT`",
    meaning: "how many requests wait for a turn",
    read: integer((earlier) => (earlier.maxInFlight as number) * 4, 0),
  }),
  queueTimeoutMs: setting({
    variable: "QUEUE_TIMEOUT_MS",
    shown: "`1000`",
    meaning: "how long a request waits for a turn",
    read: integer(1000, 1),
  }),
  maxExpensiveInFlight: setting({
    variable: "MAX_EXPENSIVE_IN_FLIGHT",
    shown: "¼ of `MAX_IN_FLIGHT`, at most half this machine's cores (≥ 1)",
    meaning:
      "the same for expensive requests (substring filters, list pages deep into the results), which also take a turn of `MAX_IN_FLIGHT`; each keeps a database core busy (raise it for a database on cores of its own, D50)",
    read: integer((earlier) => expensiveTurns(earlier.maxInFlight as number, availableParallelism()), 1),
  }),
  maxExpensiveQueued: setting({
    variable: "MAX_EXPENSIVE_QUEUED",
    shown: "2 × `MAX_EXPENSIVE_IN_FLIGHT`",
    meaning: "how many expensive requests wait for a turn",
    read: integer((earlier) => (earlier.maxExpensiveInFlight as number) * 2, 0),
  }),
  deepPageOffset: setting({
    variable: "DEEP_PAGE_OFFSET",
    shown: "`10000`",
    meaning: "a notification list page at or past this many rows (`page × limit`) counts as expensive",
    read: integer(10_000, 1),
  }),
  maxUrlLength: setting({
    variable: "MAX_URL_LENGTH",
    shown: "`8192`",
    meaning: "longer URLs are 414",
    read: integer(8192, 256),
  }),
  maxHeaderBytes: setting({
    variable: "MAX_HEADER_BYTES",
    shown: "`16384`",
    meaning: "larger request heads are 431",
    read: integer(16_384, 1024),
  }),
};

type Settings = typeof settings;
export type Config = { [Key in keyof Settings]: ReturnType<Settings[Key]["read"]> };

/** Every setting from the environment, in the order declared (a default may follow from one read before it). */
export function loadConfig(env: Env = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(settings) as [string, Setting<unknown>][]) {
    config[key] = declared.read(env[declared.variable], declared.variable, config);
  }
  return config as Config;
}
