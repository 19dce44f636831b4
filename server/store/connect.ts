import { Kysely, type KyselyConfig, PostgresDialect } from "kysely";
import pg from "pg";
import { openPGlite } from "./pglite-open.js";
import { PGlitePool } from "./pglite-pool.js";
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
   * PostgreSQL only (default true): send statements as named prepared statements, planned once per connection
   * (server/store/prepared-statements.ts). Off for a pooler that cannot keep them (PgBouncer before 1.21 in
   * transaction mode).
   */
  preparedStatements?: boolean | undefined;
  /**
   * PostgreSQL only: told when an idle pooled connection dies (a server restart, an administrator ending sessions).
   * The pool drops that connection and opens a new one when needed; without a listener the process would crash.
   */
  onIdleConnectionError?: ((error: Error) => void) | undefined;
  /**
   * PGlite only (default true): run it on a worker thread, so that a statement does not block this thread (admission
   * keeps refusing, cheap requests keep being answered); false runs it here.
   */
  pgliteThread?: boolean | undefined;
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
      if (options.preparedStatements !== false) prepareStatements(pool);
      pool.on("error", (error) => options.onIdleConnectionError?.(error));
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
  // On a worker thread by default (PGLITE_THREAD=false: on this one), so that a slow query does not stop the server.
  const pglite =
    options.pgliteThread === false ? await openPGlite(options.dataDir) : await startPGliteWorker(options.dataDir);
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }), log: options.log }),
    driver: "pglite",
    location: options.dataDir ? `PGlite in ${options.dataDir}` : "PGlite in memory",
  };
}

/** The URL with its password hidden, for logs and the start-up message. */
function masked(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.password) url.password = "***";
  return url.toString();
}
