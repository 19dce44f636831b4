/**
 * Prepared statements on PostgreSQL, for the statements that ask for them. node-postgres parses and plans every
 * statement again unless it is given a name; a get by id plans over every monthly partition of notifications each
 * time (pgbench: 2,395 tps as sent, 22,257 prepared; store level here: 1.6 ms -> 0.8 ms p50).
 *
 * Only statements carrying `prepared` are named: after five runs PostgreSQL may keep one generic plan for all
 * parameters (`plan_cache_mode = auto`), which is right for a lookup by key and wrong where the best plan depends on
 * the values. Measured with every statement prepared, the list's filters that choose their plan by kept counts went
 * from 5 to 144 ms (topicKey with no notifications) and 5 to 42 ms (severity=low & channels=sms). The name is a hash of
 * the text, so one text has one name on every connection; past `maxStatements` distinct texts, new ones run unnamed.
 */
import { createHash } from "node:crypto";
import { sql } from "kysely";
import type pg from "pg";

const marker = "/* prepared */";

/**
 * Appended to a statement (`.modifyEnd(prepared)`, or inside a `sql` template) to have it prepared: planned once per
 * connection and then reused. Only for statements whose best plan does not depend on their parameters.
 */
export const prepared = sql.raw(` ${marker}`);

const defaultMaxStatements = 1000;

/** The statement name node-postgres prepares a text under, or undefined when it is to run unnamed. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly maxStatements: number;

  constructor(maxStatements = defaultMaxStatements) {
    this.maxStatements = maxStatements;
  }

  nameOf(text: string): string | undefined {
    if (!text.includes(marker)) return undefined;
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.maxStatements) return known;
    const name = `s${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    this.names.set(text, name);
    return name;
  }
}

type Query = pg.PoolClient["query"];

/**
 * Makes each new connection of the pool send `query(text, values)`, the form Kysely uses, as a named (prepared)
 * statement where `names` gives one; every other form of call goes through unchanged.
 */
export function prepareStatements(pool: pg.Pool, names = new StatementNames()): pg.Pool {
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const [text, values] = args;
      if (args.length === 2 && typeof text === "string" && Array.isArray(values)) {
        const name = names.nameOf(text);
        if (name) return query({ name, text, values });
      }
      return query(...args);
    }) as Query;
  });
  return pool;
}
