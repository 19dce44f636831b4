import { type Kysely, sql } from "kysely";
import { prepared } from "./prepared-statements.js";
import type { Database } from "./schema.js";

export interface TakenToken {
  /** Tokens left after this request, fractional. */
  tokens: number;
  /** Whether this request got a token. */
  allowed: boolean;
}

/**
 * Token buckets kept in the database, one row per API key, for every API instance on it. A request refills the
 * bucket for the time since the last one (at the database's clock, the same for every instance) and takes a token
 * if a whole one is there, in one atomic statement: two instances taking at once are serialised on the row.
 */
export class RateLimitBuckets {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Takes a token from the key's bucket of `burst` tokens refilled at `refillPerSecond`; a new key starts full. */
  async take(keyHash: string, burst: number, refillPerSecond: number): Promise<TakenToken> {
    // The refill up to now, the time of the row this statement tried to insert (Citus takes no function but an
    // immutable one in DO UPDATE: now() is in the VALUES).
    const refilled = sql<number>`least(${burst}::float8, b.tokens + extract(epoch FROM excluded.updated_at - b.updated_at)::float8 * ${refillPerSecond}::float8)`;
    const { rows } = await sql<TakenToken>`
      INSERT INTO rate_limit_buckets AS b (key_hash, tokens, allowed, updated_at)
      VALUES (${keyHash}, ${burst}::float8 - 1, true, now())
      ON CONFLICT (key_hash) DO UPDATE SET
        tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
        allowed = ${refilled} >= 1,
        updated_at = excluded.updated_at
      RETURNING tokens, allowed ${prepared}`.execute(this.db);
    return rows[0] as TakenToken;
  }

  /** Deletes the buckets untouched for `idleSeconds`: full again by then, they are the same as no row. */
  async sweep(idleSeconds: number): Promise<number> {
    const result = await this.db
      .deleteFrom("rate_limit_buckets")
      .where("updated_at", "<", sql<Date>`now() - make_interval(secs => ${idleSeconds})`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
