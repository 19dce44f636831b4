/**
 * The migration lock survives a stale statement timeout (server/store/migrate.ts). The migrations turn the pool's
 * statement timeout off with a SET; when that timeout is tiny, it can fire just as the SET ends and cancel the next
 * statement, the lock's, which may already hold the session-level lock by then. Seen once in CI (a loaded Citus
 * coordinator, `statementTimeoutMs: 1`), about once in 28,000 by hand. Here the cancellation is made to happen every
 * time, at its worst: after pg_advisory_lock has taken the lock.
 */
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from "kysely";
import { describe, expect, it } from "vitest";
import { connect } from "../../server/store/connect.js";
import { migrate } from "../../server/store/migrate.js";
import { createPostgresDatabase, drivers, pgliteTemplate } from "../support/databases.js";

// The migration lock (724_511_001, a bigint key: objsubid 1) held by this session; Citus takes advisory locks of its own.
const sessionHoldsMigrationLock = sql`locktype = 'advisory' AND objsubid = 1 AND objid = 724511001 AND pid = pg_backend_pid()`;

/** Answers the first `times` pg_advisory_lock statements with PostgreSQL's statement-timeout error, after they ran. */
class CancelLockAfterItRan implements KyselyPlugin {
  private readonly locks = new WeakSet<object>();
  cancelled = 0;
  private readonly times: number;
  constructor(times: number) {
    this.times = times;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node as { kind: string; sqlFragments?: readonly string[] };
    if (node.kind === "RawNode" && node.sqlFragments?.join("?").includes("pg_advisory_lock(")) {
      this.locks.add(args.queryId);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.locks.has(args.queryId) && this.cancelled < this.times) {
      this.cancelled++;
      throw Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
    }
    return args.result;
  }
}

describe.each(drivers)("the migration lock (%s)", (driver) => {
  it("is taken again after a cancelled pg_advisory_lock, and none is left held", async () => {
    const database = driver === "postgres" ? await createPostgresDatabase() : undefined;
    const { db } = await connect({ databaseUrl: database?.url, pgliteTemplate, poolSize: 1 });
    try {
      const cancel = new CancelLockAfterItRan(2);
      await migrate(db.withPlugin(cancel));
      expect(cancel.cancelled).toBe(2);
      const recorded = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db);
      expect(recorded.rows.map((row) => row.name)).toContain("001_schema.sql");
      // One connection: the session that migrated holds no advisory lock, and another migration runs at once.
      const held = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_locks WHERE ${sessionHoldsMigrationLock}`.execute(db);
      expect(held.rows[0]?.n).toBe(0);
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.destroy();
      await database?.drop();
    }
  }, 120_000);

  it("gives up after five cancelled attempts, with PostgreSQL's error", async () => {
    const database = driver === "postgres" ? await createPostgresDatabase() : undefined;
    const { db } = await connect({ databaseUrl: database?.url, pgliteTemplate, poolSize: 1 });
    try {
      await expect(migrate(db.withPlugin(new CancelLockAfterItRan(5)))).rejects.toMatchObject({ code: "57014" });
      const held = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_locks WHERE ${sessionHoldsMigrationLock}`.execute(db);
      expect(held.rows[0]?.n).toBe(0);
    } finally {
      await db.destroy();
      await database?.drop();
    }
  }, 120_000);
});
