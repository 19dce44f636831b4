/**
 * Prepared statements on PostgreSQL, for the statements that ask for them. node-postgres parses and plans every
 * statement again unless it is given a name; a get by id plans over every monthly partition of notifications each
 * time (pgbench: 2,395 tps as sent, 22,257 prepared; store level here: 1.6 ms -> 0.8 ms p50).
 *
 * Two markers (D32, D46):
 * - `prepared`: a lookup by key. Named, so parsed once per connection; PostgreSQL keeps one generic plan for it after
 *   five runs on its own (`plan_cache_mode = auto`), as the cost of every value is the same.
 * - `generic`: a statement whose best plan does not depend on its values but whose generic plan PostgreSQL's `auto`
 *   never picks (the unfiltered list: pruned to one or two monthly partitions per value, its generic plan is costed
 *   over all of them, so `auto` plans it anew every time, 58% of its database time). Named, and run with
 *   `plan_cache_mode = force_generic_plan`: the connection is switched to it (one `SET`) when the last statement
 *   it ran was planned for its values, and back to `auto` before the next unnamed statement; never inside a
 *   transaction, so that no rollback undoes a switch unseen.
 * Every other statement is planned for its values each time: measured with every statement prepared, the list's
 * filters that choose their plan by kept counts went from 5 to 144 ms (topicKey with no notifications) and 5 to 42 ms
 * (severity=low & channels=sms). The name is a hash of the text, so one text has one name on every connection; past
 * `maxStatements` distinct texts, new ones run unnamed (and planned for their values).
 */
import { createHash } from "node:crypto";
import { sql } from "kysely";
import type pg from "pg";

const preparedMarker = "/* prepared */";
const genericMarker = "/* generic */";

/**
 * Appended to a statement (`.modifyEnd(prepared)`, or inside a `sql` template) to have it prepared: planned once per
 * connection and then reused. Only for lookups by key, whose plan is the same for every value.
 */
export const prepared = sql.raw(` ${preparedMarker}`);

/**
 * Appended to a statement to have it prepared and always run on its generic plan (`force_generic_plan`), planned once
 * per connection. Only for statements whose best plan does not depend on their values.
 */
export const generic = sql.raw(` ${genericMarker}`);

const defaultMaxStatements = 1000;

/** The statement name node-postgres prepares a text under, or undefined when it is to run unnamed. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly maxStatements: number;

  constructor(maxStatements = defaultMaxStatements) {
    this.maxStatements = maxStatements;
  }

  nameOf(text: string): string | undefined {
    if (!text.endsWith(preparedMarker) && !text.endsWith(genericMarker)) return undefined;
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.maxStatements) return known;
    const name = `s${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    this.names.set(text, name);
    return name;
  }
}

type Query = pg.PoolClient["query"];

/** What a statement needs of the connection's `plan_cache_mode`: nothing (a lookup by key), its generic plan, or its values. */
export type PlanNeed = "any" | "generic" | "values";

/**
 * What a statement (named or not by `names`) needs of the connection's `plan_cache_mode`. A named write (the PATCH's
 * UPDATE) needs `auto` too: the triggers it fires run their statements in the session's mode, and after an unfiltered
 * list left it on `force_generic_plan` the kept-count trigger's generic plans made a PATCH outside a transaction 84 ms
 * where it takes 1.4 (measured on the bench data).
 */
export function planNeedOf(text: string, name: string | undefined): PlanNeed {
  if (name === undefined) return "values";
  if (text.endsWith(genericMarker)) return "generic";
  return /^\s*select\b/i.test(text) ? "any" : "values";
}

/**
 * One session's `plan_cache_mode`, switched only outside transactions: what to set before a statement runs
 * (undefined: nothing), given what it needs. Shared by node-postgres connections and PGlite's one session.
 */
export class PlanMode {
  private forcedGeneric = false;
  /** Whether the session is inside a transaction (as far as the statements seen tell). */
  inTransaction = false;

  /** The `SET` to send before the statement, if any (the mode is taken as switched once it is returned). */
  before(text: string, need: PlanNeed): string | undefined {
    if (transactionEnd.test(text)) {
      this.inTransaction = false;
    } else if (transactionStart.test(text)) {
      this.inTransaction = true;
      // Statements in a transaction are planned for their values: the mode is set back before it begins.
      return this.forcedGeneric ? this.set(false) : undefined;
    }
    if (this.inTransaction || need === "any" || (need === "generic") === this.forcedGeneric) return undefined;
    return this.set(need === "generic");
  }

  private set(generic: boolean): string {
    this.forcedGeneric = generic;
    return `SET plan_cache_mode = ${generic ? "force_generic_plan" : "auto"}`;
  }
}

const transactionStart = /^\s*(begin|start\s+transaction)\b/i;
// `ROLLBACK TO SAVEPOINT` stays inside the transaction.
const transactionEnd = /^\s*(commit|end|abort|rollback(?!\s+to\b))\b/i;

const citusCheck = "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus";

/**
 * Makes each new connection of the pool send `query(text, values)`, the form Kysely uses, as a named (prepared)
 * statement where `names` gives one, on the plan cache mode its marker asks for; every other form of call goes
 * through unchanged.
 */
export function prepareStatements(pool: pg.Pool, names = new StatementNames()): pg.Pool {
  // Whether the database is a Citus coordinator, learnt on the first statement marked `generic` (D46): Citus cannot
  // plan the distributed list generically ("parameters in SQL functions ... not supported", 0A000), so there such a
  // statement runs as it did before, unnamed and planned for its values.
  let citus: boolean | undefined;
  let checking: Promise<void> | undefined;
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const mode = new PlanMode();
    client.query = ((...args: unknown[]) => {
      const [text, values] = args;
      if (args.length !== 2 || typeof text !== "string" || !Array.isArray(values)) return query(...args);
      const generic = text.endsWith(genericMarker);
      if (generic && citus === undefined) {
        checking ??= (query(citusCheck) as Promise<{ rows: { citus: boolean }[] }>).then(
          (result) => {
            citus = result.rows[0]?.citus === true;
          },
          (error: unknown) => {
            checking = undefined;
            throw error;
          },
        );
        return checking.then(() => client.query(text, values));
      }
      const name = generic && citus ? undefined : names.nameOf(text);
      const run = () => (name ? query({ name, text, values }) : query(text, values));
      // The mode is taken as switched when the SET is sent: if it fails, so does the statement, and the connection
      // with it (a SET of a known setting fails only when the session does).
      const set = mode.before(text, planNeedOf(text, name));
      return set === undefined ? run() : query(set).then(run);
    }) as Query;
  });
  return pool;
}
