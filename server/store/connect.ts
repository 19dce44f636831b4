import { statfsSync } from "node:fs";
import { join } from "node:path";
import { Kysely, type KyselyConfig, PostgresDialect } from "kysely";
import pg from "pg";
import { lockDataDirectory } from "./data-directory-lock.js";
import { queriesThroughCallbacks } from "./pg-callback-queries.js";
import { openPGlite } from "./pglite-open.js";
import { PGlitePool, type PGliteSource, singleInstance } from "./pglite-pool.js";
import { PGliteSupervisor } from "./pglite-supervisor.js";
import { startPGliteWorker } from "./pglite-worker.js";
import { prepareStatements } from "./prepared-statements.js";
import type { Database } from "./schema.js";

export type DriverName = "pglite" | "postgres";

export interface ConnectOptions {
  /** A PostgreSQL connection string; when absent, PGlite runs in this process. */
  databaseUrl?: string | undefined;
  /**
   * PostgreSQL only: a read replica (streaming replication) for the queries that only read; writes stay on
   * `databaseUrl`. Replicas lag a little: a read right after a write may not see it yet.
   */
  readDatabaseUrl?: string | undefined;
  /** PGlite only: a directory to keep the database in; when absent, it lives in memory. */
  dataDir?: string | undefined;
  /** PostgreSQL only: the most connections one process opens. */
  poolSize?: number | undefined;
  /**
   * PostgreSQL only: statements running longer are cancelled by the server (SQLSTATE 57014, `query_canceled`); 0 or
   * absent: no limit. PGlite has no timer to cancel with.
   */
  statementTimeoutMs?: number | undefined;
  /**
   * Default true: send the marked statements as prepared statements, planned once per connection: named on PostgreSQL
   * (prepared-statements.ts), SQL `PREPARE` on PGlite (pglite-prepared-statements.ts). Off for a pooler that cannot
   * keep them (PgBouncer before 1.21 in transaction mode).
   */
  preparedStatements?: boolean | undefined;
  /**
   * PostgreSQL only: told when a pooled connection dies, idle or lent to a request (a server restart, an administrator
   * ending sessions, a panic on a full disk). The pool drops that connection and opens a new one when needed; the
   * request that held it gets its query's error (a 503). Without these listeners node-postgres's "error" event would
   * end the process.
   */
  onConnectionError?: ((error: Error) => void) | undefined;
  /** PGlite on its thread only: told when a database that stopped answering (a PANIC on a full disk) answers again. */
  onReconnected?: ((afterMs: number) => void) | undefined;
  /** PGlite on its thread only: told when an attempt to open it again failed (it is tried every second). */
  onReconnectFailed?: ((error: Error, attempt: number) => void) | undefined;
  /**
   * PGlite only (default true): run it on a worker thread, so that a statement does not block this thread (admission
   * keeps refusing, cheap requests keep being answered); false runs it here.
   */
  pgliteThread?: boolean | undefined;
  /**
   * PGlite only: a file written by PGlite's `dumpDataDir("none")` (a tar of a data directory) that a new database
   * starts from instead of an empty one: every in-memory database opened, or opened again, and a data directory that
   * holds no database yet (one that holds one is opened as it is; pglite-open.ts). initdb and the migrations cost a
   * new database 2.6-3.6 s of CPU on two cores, opening a migrated template 0.6-1.0 s. The migrations still run after
   * it (those it has are skipped). The server's start passes its cached template (pglite-template.ts
   * `cachedPGliteTemplate`); the test suites open their databases this way (test/global-setup.ts writes it).
   */
  pgliteTemplate?: string | undefined;
  /** Told of every query run (Kysely's log hook): the benchmark uses it to explain the statements of each shape. */
  log?: KyselyConfig["log"];
}

export interface Connection {
  db: Kysely<Database>;
  /** The read replica's connection, when one is configured. */
  readDb?: Kysely<Database> | undefined;
  driver: DriverName;
  /** Where the data lives, for the start-up message (the password of a URL is masked). */
  location: string;
}

// timestamptz and jsonb come back as Date and objects from both drivers; int8 (count) is cast in SQL.
export async function connect(options: ConnectOptions): Promise<Connection> {
  if (options.readDatabaseUrl && !options.databaseUrl) {
    throw new Error("DATABASE_READ_URL needs DATABASE_URL: a read replica serves a PostgreSQL primary");
  }
  if (options.databaseUrl) {
    const kysely = (connectionString: string) => {
      const pool = new pg.Pool({
        connectionString,
        max: options.poolSize ?? 10,
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      });
      // First: the statement wrappers after it call the callback form it puts under them (D77).
      queriesThroughCallbacks(pool);
      if (options.preparedStatements !== false) prepareStatements(pool);
      const told = (error: Error) => options.onConnectionError?.(error);
      // Idle connections report to the pool; a connection lent out reports to its own client, between queries too.
      pool.on("error", told);
      pool.on("connect", (client) => client.on("error", told));
      return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
    };
    return {
      db: kysely(options.databaseUrl),
      readDb: options.readDatabaseUrl ? kysely(options.readDatabaseUrl) : undefined,
      driver: "postgres",
      location:
        masked(options.databaseUrl) +
        (options.readDatabaseUrl ? `, reads from ${masked(options.readDatabaseUrl)}` : ""),
    };
  }
  const source = await openPGliteSource(options);
  return {
    db: new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new PGlitePool(source, options) }),
      log: options.log,
    }),
    driver: "pglite",
    location: options.dataDir ? `PGlite in ${options.dataDir}` : "PGlite in memory",
  };
}

/**
 * PGlite, its data directory locked to this process (data-directory-lock.ts): on a worker thread by default
 * (PGLITE_THREAD=false: on this one), so that a slow query does not stop the server, and reopened if it panics.
 */
async function openPGliteSource(options: ConnectOptions): Promise<PGliteSource> {
  const lock = options.dataDir ? lockDataDirectory(options.dataDir) : undefined;
  try {
    const { dataDir, pgliteTemplate } = options;
    if (options.pgliteThread === false) {
      return singleInstance(await openPGlite(dataDir, pgliteTemplate), () => lock?.release());
    }
    const supervisor = await PGliteSupervisor.start(() => startPGliteWorker(dataDir, pgliteTemplate), {
      diskFull: () => dataDir !== undefined && dataDirFree(dataDir) < walSegmentBytes * 2,
      lost: (error) => options.onConnectionError?.(error),
      reopened: (afterMs) => options.onReconnected?.(afterMs),
      reopenFailed: (error, attempt) => options.onReconnectFailed?.(error, attempt),
    });
    return {
      get generation() {
        return supervisor.generation;
      },
      run: (generation, call) => supervisor.run(generation, call),
      async close() {
        await supervisor.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** PostgreSQL makes its WAL 16 MB at a time: a disk with less free than two segments is full to it. */
const walSegmentBytes = 16 * 1024 * 1024;

/** The data directory's free space: the less of its own disk's and its WAL's (`pg_wal` may be a disk of its own). */
function dataDirFree(dataDir: string): number {
  return Math.min(freeBytes(dataDir), freeBytes(join(dataDir, "pg_wal")));
}

function freeBytes(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The URL with its password hidden, for logs and the start-up message. */
function masked(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.password) url.password = "***";
  return url.toString();
}
