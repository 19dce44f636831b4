import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import { PGlitePreparedStatements } from "./pglite-prepared-statements.js";
import type { PGliteLike } from "./pglite-worker.js";
import { StatementNames } from "./prepared-statements.js";

type Command = PostgresQueryResult<unknown>["command"];

function commandOf(sql: string): Command {
  const word = sql.trimStart().slice(0, 6).toUpperCase();
  return (["INSERT", "UPDATE", "DELETE", "MERGE"].includes(word) ? word : "SELECT") as Command;
}

/**
 * Where the pool's statements run: one PGlite instance, and the generation of it (pglite-supervisor.ts replaces an
 * instance that panicked; a connection lent before that may not go on on the new one).
 */
export interface PGliteSource {
  readonly generation: number;
  run<T>(generation: number, call: (pglite: PGliteLike) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A PGlite instance that is never replaced, as a source. */
export function singleInstance(pglite: PGliteLike, onClose: () => void = () => {}): PGliteSource {
  return {
    generation: 0,
    run: (_generation, call) => call(pglite),
    async close() {
      await pglite.close();
      onClose();
    },
  };
}

/**
 * Presents one in-process PGlite database to Kysely's Postgres dialect as a pool with a single connection.
 * PGlite has one session, so a connection is lent to one user at a time: a transaction keeps it until it ends,
 * and everything else waits its turn.
 */
export class PGlitePool implements PostgresPool {
  private tail: Promise<void> = Promise.resolve();

  private readonly source: PGliteSource;
  private readonly newStatements: () => PGlitePreparedStatements;
  private statements: { generation: number; prepared: PGlitePreparedStatements };

  /** `preparedStatements: false` runs every statement unnamed, as PREPARED_STATEMENTS=false does on PostgreSQL. */
  constructor(source: PGliteSource, options: { preparedStatements?: boolean | undefined } = {}) {
    this.source = source;
    const names = options.preparedStatements === false ? new StatementNames(0) : new StatementNames();
    this.newStatements = () => new PGlitePreparedStatements(names);
    this.statements = { generation: source.generation, prepared: this.newStatements() };
  }

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    const source = this.source;
    const generation = source.generation;
    // A new instance (after a panic) has prepared nothing.
    if (this.statements.generation !== generation) this.statements = { generation, prepared: this.newStatements() };
    const statements = this.statements.prepared;
    return {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        const result = await source.run(generation, (pglite) => statements.query(pglite, sql, [...parameters]));
        const rows = (result?.rows ?? []) as R[];
        return { command: commandOf(sql), rowCount: result?.affectedRows ?? rows.length, rows };
      },
      release,
    } as PostgresPoolClient;
  }

  async end(): Promise<void> {
    await this.tail;
    await this.source.close();
  }
}
