import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type { PGliteLike } from "./pglite-worker.js";

type Command = PostgresQueryResult<unknown>["command"];

function commandOf(sql: string): Command {
  const word = sql.trimStart().slice(0, 6).toUpperCase();
  return (["INSERT", "UPDATE", "DELETE", "MERGE"].includes(word) ? word : "SELECT") as Command;
}

/**
 * Presents one in-process PGlite database to Kysely's Postgres dialect as a pool with a single connection.
 * PGlite has one session, so a connection is lent to one user at a time: a transaction keeps it until it ends,
 * and everything else waits its turn.
 */
export class PGlitePool implements PostgresPool {
  private tail: Promise<void> = Promise.resolve();

  private readonly pglite: PGliteLike;

  constructor(pglite: PGliteLike) {
    this.pglite = pglite;
  }

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    const pglite = this.pglite;
    return {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        // Like node-postgres: without parameters, the simple protocol, which allows several statements (migrations).
        const result =
          parameters.length === 0 ? (await pglite.exec(sql)).at(-1) : await pglite.query<R>(sql, [...parameters]);
        const rows = (result?.rows ?? []) as R[];
        return { command: commandOf(sql), rowCount: result?.affectedRows ?? rows.length, rows };
      },
      release,
    } as PostgresPoolClient;
  }

  async end(): Promise<void> {
    await this.tail;
    await this.pglite.close();
  }
}
