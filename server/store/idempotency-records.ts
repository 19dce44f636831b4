import type { StoredAnswer } from "@novu-query/express";
import { type Kysely, sql } from "kysely";
import { prepared } from "./prepared-statements.js";
import type { Database } from "./schema.js";
import { storedAnswerOf } from "./subscribers.js";

export class IdempotencyRecordStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /**
   * Takes the key's lock for the rest of the current transaction and reads the live answer stored for it, in one round
   * trip (migration 011, `claim_idempotency_key`): `locked` false when another transaction holds the key (a request
   * with the same key is in flight). Must run inside a transaction.
   */
  async claim(environmentId: string, key: string): Promise<{ locked: boolean; stored: StoredAnswer | undefined }> {
    const { rows } = await sql<{
      locked: boolean;
      fingerprint: string | null;
      status_code: number | null;
      body: string | null;
      subscriber: unknown;
    }>`SELECT locked, fingerprint, status_code, body, subscriber FROM claim_idempotency_key(${environmentId}, ${key}) ${prepared}`.execute(
      this.db,
    );
    const row = rows[0];
    if (!row?.locked) return { locked: false, stored: undefined };
    return { locked: true, stored: storedAnswerOf(row) };
  }

  async find(environmentId: string, key: string): Promise<StoredAnswer | undefined> {
    const row = await this.db
      .selectFrom("idempotency_records")
      .select(["fingerprint", "status_code", "body", "subscriber"])
      .where("environment_id", "=", environmentId)
      .where("idempotency_key", "=", key)
      .where("expires_at", ">", sql<Date>`now()`)
      .modifyEnd(prepared)
      .executeTakeFirst();
    return row && storedAnswerOf(row);
  }

  async save(environmentId: string, key: string, response: StoredAnswer, ttlSeconds: number): Promise<void> {
    const values = {
      fingerprint: response.fingerprint,
      status_code: response.statusCode,
      body: response.body,
      subscriber: null,
      subscriber_bytes: null,
      created_at: sql<Date>`now()`,
      expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})`,
    };
    await this.db
      .insertInto("idempotency_records")
      .values({ environment_id: environmentId, idempotency_key: key, ...values })
      // Only an expired record can be here (a live one would have been replayed); it is replaced, by the values of the
      // row this statement tried to insert (Citus takes no function but an immutable one in DO UPDATE).
      .onConflict((oc) =>
        oc.columns(["environment_id", "idempotency_key"]).doUpdateSet((eb) => ({
          fingerprint: eb.ref("excluded.fingerprint"),
          status_code: eb.ref("excluded.status_code"),
          body: eb.ref("excluded.body"),
          subscriber: eb.ref("excluded.subscriber"),
          subscriber_bytes: eb.ref("excluded.subscriber_bytes"),
          created_at: eb.ref("excluded.created_at"),
          expires_at: eb.ref("excluded.expires_at"),
        })),
      )
      .modifyEnd(prepared)
      .execute();
  }

  /**
   * Keeps the environment's newest answers within `maxBytes` of stored bodies and deletes the older ones (their keys
   * are then new keys again); returns how many were deleted.
   */
  async keepNewestWithin(environmentId: string, maxBytes: number): Promise<number> {
    const result = await sql`
      DELETE FROM idempotency_records AS r
      USING (
        SELECT idempotency_key FROM (
          SELECT idempotency_key,
                 -- A PATCH's answer kept as its columns (migration 013) counts the size of its text, kept beside it.
                 sum(coalesce(octet_length(body), subscriber_bytes, 0)) OVER (ORDER BY created_at DESC, idempotency_key DESC) AS kept_bytes
          FROM idempotency_records
          WHERE environment_id = ${environmentId}
        ) AS newest_first
        WHERE kept_bytes > ${maxBytes}
      ) AS old
      WHERE r.environment_id = ${environmentId} AND r.idempotency_key = old.idempotency_key`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  /** Deletes expired records; returns how many. */
  async deleteExpired(): Promise<number> {
    const result = await this.db
      .deleteFrom("idempotency_records")
      .where("expires_at", "<=", sql<Date>`now()`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
