import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { Kysely, type KyselyConfig, PostgresDialect } from "kysely";
import pg from "pg";
import { PGlitePool } from "./pglite-pool.js";
import type { Database } from "./schema.js";

export type DriverName = "pglite" | "postgres";

export interface ConnectOptions {
  /** A PostgreSQL connection string; when absent, PGlite runs in this process. */
  databaseUrl?: string | undefined;
  /** PGlite only: a directory to keep the database in; when absent, it lives in memory. */
  dataDir?: string | undefined;
  /** PostgreSQL only: the most connections one process opens. */
  poolSize?: number | undefined;
  /**
   * PostgreSQL only: told when an idle pooled connection dies (a server restart, an administrator ending sessions).
   * The pool drops that connection and opens a new one when needed; without a listener the process would crash.
   */
  onIdleConnectionError?: ((error: Error) => void) | undefined;
  /** Told of every query run (Kysely's log hook): the benchmark uses it to explain the statements of each shape. */
  log?: KyselyConfig["log"];
}

export interface Connection {
  db: Kysely<Database>;
  driver: DriverName;
  /** Where the data lives, for the start-up message (the password of a URL is masked). */
  location: string;
}

// timestamptz and jsonb come back as Date and objects from both drivers; int8 (count) is cast in SQL.
export async function connect(options: ConnectOptions): Promise<Connection> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    pool.on("error", (error) => options.onIdleConnectionError?.(error));
    const url = new URL(options.databaseUrl);
    if (url.password) url.password = "***";
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log }),
      driver: "postgres",
      location: url.toString(),
    };
  }
  const pglite = await PGlite.create(options.dataDir ?? "memory://", { extensions: { pg_trgm } });
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }), log: options.log }),
    driver: "pglite",
    location: options.dataDir ? `PGlite in ${options.dataDir}` : "PGlite in memory",
  };
}
