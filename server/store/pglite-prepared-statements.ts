/**
 * Prepared statements on PGlite, for the statements marked `prepared` or `generic` (prepared-statements.ts). PGlite
 * runs every query as an unnamed statement, so each one is parsed and planned again; a get by id plans over every
 * monthly partition, the unfiltered list over all of them twice (D46). Here a marked statement is prepared once per
 * PGlite instance with SQL `PREPARE`, and run with `EXECUTE name(values)`; `EXECUTE` takes no bound parameters, so
 * each value is written as a quoted literal (node-postgres's own text form of it, escaped by its `escapeLiteral`),
 * which PostgreSQL reads with the parameter's input function, as it reads a bound one. The plan cache mode is
 * switched as on PostgreSQL (PlanMode).
 */
import { createRequire } from "node:module";
import pg from "pg";
import type { PGliteLike } from "./pglite-worker.js";
import { PlanMode, planNeedOf, StatementNames } from "./prepared-statements.js";

type Result = Awaited<ReturnType<PGliteLike["query"]>>;

/** node-postgres's text form of a parameter (what it sends on the wire), its one implementation of it. */
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
  prepareValue(value: unknown): unknown;
};

/** A value as an SQL literal, or undefined when it has no text form (binary data: run that statement unnamed). */
function literal(value: unknown): string | undefined {
  const text = prepareValue(value);
  if (text === null) return "NULL";
  return typeof text === "string" ? pg.escapeLiteral(text) : undefined;
}

/** The statements one PGlite instance (one session) has prepared, and its plan cache mode. */
export class PGlitePreparedStatements {
  private readonly names: StatementNames;
  private readonly prepared = new Set<string>();
  /** Statements PostgreSQL would not prepare (a parameter whose type it cannot infer): they run unnamed. */
  private readonly refused = new Set<string>();
  private readonly mode = new PlanMode();

  constructor(names = new StatementNames()) {
    this.names = names;
  }

  /**
   * Runs the statement on this instance: prepared where it is marked and can be, on the plan mode it needs. Without
   * parameters, like node-postgres, the simple protocol, which allows several statements (migrations).
   */
  async query(pglite: PGliteLike, text: string, parameters: unknown[]): Promise<Result | undefined> {
    if (parameters.length === 0) {
      const set = this.mode.before(text, "values");
      return (await pglite.exec(set === undefined ? text : `${set}; ${text}`)).at(-1);
    }
    let name = this.names.nameOf(text);
    const literals = name === undefined || this.refused.has(name) ? undefined : parameters.map(literal);
    if (literals === undefined || literals.some((value) => value === undefined)) name = undefined;
    const set = this.mode.before(text, planNeedOf(text, name));
    if (set !== undefined) await pglite.exec(set);
    if (name === undefined || literals === undefined) return pglite.query(text, parameters);
    if (!this.prepared.has(name) && !(await this.prepare(pglite, name, text))) return pglite.query(text, parameters);
    return pglite.query(`EXECUTE ${name}${literals.length ? `(${literals.join(", ")})` : ""}`, []);
  }

  /**
   * Prepares the statement, or remembers that it cannot be. Prepared statements outlive the transaction they were
   * made in; a refusal inside one is kept from aborting it by a savepoint.
   */
  private async prepare(pglite: PGliteLike, name: string, text: string): Promise<boolean> {
    const inside = this.mode.inTransaction;
    try {
      if (inside) await pglite.exec("SAVEPOINT novu_prepare");
      await pglite.exec(`PREPARE ${name} AS ${text}`);
      if (inside) await pglite.exec("RELEASE SAVEPOINT novu_prepare");
      this.prepared.add(name);
      return true;
    } catch {
      if (inside) await pglite.exec("ROLLBACK TO SAVEPOINT novu_prepare; RELEASE SAVEPOINT novu_prepare");
      this.refused.add(name);
      return false;
    }
  }
}
