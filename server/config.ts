/** Every setting of the reference server, read from environment variables in one place (documented in the README). */
import { defaultSnapshotDir } from "./demo/snapshot.js";

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; when unset, PGlite runs in-process. */
  databaseUrl: string | undefined;
  /** PostgreSQL read replica for searches, lists and gets; writes stay on databaseUrl. */
  databaseReadUrl: string | undefined;
  /** PGlite only: keep the database in this directory; when unset, in memory. */
  dataDir: string | undefined;
  /** PostgreSQL only: connections per process. */
  poolSize: number;
  /** NODE_ENV=production: no demo data unless asked for, and no start with the public demo keys present. */
  production: boolean;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client (unknown-key limits are per client). */
  trustProxy: boolean | number | string;
  /** PGlite on a worker thread (default), so that its statements do not block the server's thread. */
  pgliteThread: boolean;
  /** Load the demo data when the store is empty (default: not in production). */
  seedDemoData: boolean;
  /** Start in production although the store holds the public demo keys (a public demo deployment). */
  allowDemoKeys: boolean;
  demoSubscribers: number;
  demoNotifications: number;
  /**
   * PGlite in memory only: where start-up snapshots of the demo database are kept (server/demo/snapshot.ts);
   * undefined: no snapshots.
   */
  demoSnapshotDir: string | undefined;
  logLevel: string;
  /** Check every response against the spec (development and tests); off in production. */
  validateResponses: boolean;
  totalCountCap: number;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  idempotencyTtlSeconds: number;
  /** Bytes of stored idempotent answers an environment keeps; the oldest go first past them. */
  idempotencyMaxBytesPerEnvironment: number;
  /** How long an API key's environment is remembered; 0 looks it up on every request. */
  apiKeyCacheSeconds: number;
  /** Notification history an environment may read when it has no retention of its own; undefined: unlimited. */
  defaultRetentionDays: number | undefined;
  /**
   * Notifications older than this many days are deleted, a whole month at a time, by dropping its partition;
   * undefined keeps everything. Set it at or above every environment's retention.
   */
  purgeAfterDays: number | undefined;
  /** Requests per minute and API key; 0 turns rate limiting off. */
  rateLimitPerMinute: number;
  /** How many requests a key may make at once before the per-minute rate applies. */
  rateLimitBurst: number;
  /**
   * Where the buckets live: `database` shares them among every instance on one PostgreSQL (the default with
   * DATABASE_URL), `memory` keeps them in this process (the default on PGlite, which one process owns anyway).
   */
  rateLimitStore: "memory" | "database";
  /** Origins allowed to call the API from a browser; empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Longest time a request may take, from its first byte to its answer. */
  requestTimeoutMs: number;
  maxUrlLength: number;
  maxHeaderBytes: number;
  /** PostgreSQL only: a statement running longer is cancelled and its request answered 503; 0: no limit. */
  statementTimeoutMs: number;
  /** PostgreSQL only: statements sent as named prepared statements, planned once per connection. */
  preparedStatements: boolean;
  /** PostgreSQL only: how often the gram indexes' pending entries are merged off the request path; 0: never. */
  gramMergeIntervalMs: number;
  /** Requests doing database work at once in this process, how many may wait for a turn, and for how long. */
  maxInFlight: number;
  maxQueued: number;
  queueTimeoutMs: number;
  /** The same for expensive requests (substring filters, deep offset pages), which also take a turn above. */
  maxExpensiveInFlight: number;
  maxExpensiveQueued: number;
  /** `page × limit` of a notification list from which it counts as expensive. */
  deepPageOffset: number;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw new Error(`${name} must be one of ${choices.join(", ")}, not "${raw}"`);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new Error(`${name} must be true or false, not "${env[name]}"`);
}

/** TRUST_PROXY as Express takes it: unset or false, true, a number of hops, or addresses and subnets. */
function trustProxy(raw: string | undefined): boolean | number | string {
  const value = (raw ?? "").trim();
  if (value === "" || value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === "production";
  const retention = integer(env, "RETENTION_DAYS", 0, 0);
  const poolSize = integer(env, "DATABASE_POOL_SIZE", 10, 1, 1000);
  const maxInFlight = integer(env, "MAX_IN_FLIGHT", poolSize, 1);
  const maxExpensiveInFlight = integer(env, "MAX_EXPENSIVE_IN_FLIGHT", Math.max(1, Math.floor(maxInFlight / 4)), 1);
  return {
    port: integer(env, "PORT", 3000, 0, 65535),
    host: env.HOST || "127.0.0.1",
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReadUrl: env.DATABASE_READ_URL || undefined,
    dataDir: env.DATA_DIR || undefined,
    poolSize,
    production,
    seedDemoData: boolean(env, "SEED_DEMO_DATA", !production),
    pgliteThread: boolean(env, "PGLITE_THREAD", true),
    trustProxy: trustProxy(env.TRUST_PROXY),
    allowDemoKeys: boolean(env, "ALLOW_DEMO_KEYS", false),
    demoSubscribers: integer(env, "DEMO_SUBSCRIBERS", 1000, 0),
    demoNotifications: integer(env, "DEMO_NOTIFICATIONS", 5000, 0),
    demoSnapshotDir: boolean(env, "DEMO_SNAPSHOTS", true) ? env.DEMO_SNAPSHOT_DIR || defaultSnapshotDir() : undefined,
    logLevel: env.LOG_LEVEL || "info",
    validateResponses: boolean(env, "VALIDATE_RESPONSES", !production),
    totalCountCap: integer(env, "TOTAL_COUNT_CAP", 50_000, 1),
    bodyLimitBytes: integer(env, "BODY_LIMIT_BYTES", 100 * 1024, 1),
    idempotencyTtlSeconds: integer(env, "IDEMPOTENCY_TTL_SECONDS", 24 * 60 * 60, 1),
    idempotencyMaxBytesPerEnvironment: integer(env, "IDEMPOTENCY_MAX_MB_PER_ENVIRONMENT", 50, 1) * 1024 * 1024,
    apiKeyCacheSeconds: integer(env, "API_KEY_CACHE_SECONDS", 30, 0, 3600),
    defaultRetentionDays: retention === 0 ? undefined : retention,
    purgeAfterDays: integer(env, "PURGE_AFTER_DAYS", 0, 0) || undefined,
    rateLimitPerMinute: integer(env, "RATE_LIMIT_PER_MINUTE", 0, 0),
    rateLimitBurst: integer(env, "RATE_LIMIT_BURST", integer(env, "RATE_LIMIT_PER_MINUTE", 0, 0), 0),
    rateLimitStore: oneOf(env, "RATE_LIMIT_STORE", ["memory", "database"], env.DATABASE_URL ? "database" : "memory"),
    corsOrigins: (env.CORS_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean),
    requestTimeoutMs: integer(env, "REQUEST_TIMEOUT_MS", 30_000, 100),
    maxUrlLength: integer(env, "MAX_URL_LENGTH", 8192, 256),
    maxHeaderBytes: integer(env, "MAX_HEADER_BYTES", 16_384, 1024),
    statementTimeoutMs: integer(env, "STATEMENT_TIMEOUT_MS", 5000, 0),
    preparedStatements: boolean(env, "PREPARED_STATEMENTS", true),
    gramMergeIntervalMs: integer(env, "GRAM_MERGE_INTERVAL_MS", 250, 0),
    maxInFlight,
    maxQueued: integer(env, "MAX_QUEUED", maxInFlight * 4, 0),
    queueTimeoutMs: integer(env, "QUEUE_TIMEOUT_MS", 1000, 1),
    maxExpensiveInFlight,
    maxExpensiveQueued: integer(env, "MAX_EXPENSIVE_QUEUED", maxExpensiveInFlight * 2, 0),
    deepPageOffset: integer(env, "DEEP_PAGE_OFFSET", 10_000, 1),
  };
}
