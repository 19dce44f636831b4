import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

/** The monthly partitions of `notifications` (migration 003): made ahead of the rows, dropped for retention. */
export class NotificationPartitions {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Creates the partitions for every month from `from` to `to`; returns how many were new. */
  async ensure(from: Date, to: Date): Promise<number> {
    const { rows } = await sql<{ created: number }>`
      SELECT ensure_notification_partitions(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz) AS created`.execute(
      this.db,
    );
    return rows[0]?.created ?? 0;
  }

  /** The months the server keeps ready: the previous one, this one and the next three. */
  ensureAround(now: Date): Promise<number> {
    const day = 86_400_000;
    return this.ensure(new Date(now.getTime() - 31 * day), new Date(now.getTime() + 93 * day));
  }

  /** Drops every month that ends on or before `before`, with all its notifications; returns the partitions' names. */
  async dropBefore(before: Date): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`
      SELECT drop_notification_partitions(${before.toISOString()}::timestamptz) AS name`.execute(this.db);
    return rows.map((row) => row.name);
  }

  /** The partitions there are, oldest first. */
  async list(): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'notifications'::regclass ORDER BY c.relname`.execute(this.db);
    return rows.map((row) => row.name);
  }
}
