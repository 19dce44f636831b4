/**
 * Scale-out on one PostgreSQL: the server sends reads to a streaming replica (DATABASE_READ_URL) and writes to the
 * primary (DATABASE_URL). The replica is a real one, made with pg_basebackup by test/global-setup.ts. Pausing its
 * replay shows where each query went: a write is visible on the primary at once and through the API only once the
 * replica has replayed it.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { AccessStore, generateApiKey } from "../../server/store/access.js";
import { connect } from "../../server/store/connect.js";
import { createPostgresDatabase, onCitus } from "../support/databases.js";

const replicaAdminUrl = process.env.TEST_REPLICA_URL;
const enabled = Boolean(process.env.TEST_DATABASE_URL && replicaAdminUrl);

// A Citus run (npm run test:citus) starts a coordinator and two workers and no replica: `npm test` has run these.
it.skipIf(onCitus)("runs in CI, where PostgreSQL and its replica are always started", () => {
  if (process.env.CI) expect(enabled).toBe(true);
});

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not there after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!enabled)("reads from a streaming replica (DATABASE_READ_URL)", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let replicaUrl: string;
  let server: ServerProcess;
  const replay = (action: "pause" | "resume") => query(replicaAdminUrl as string, `SELECT pg_wal_replay_${action}()`);
  const api = (path: string, init: RequestInit = {}, key = server.keys.Production) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `ApiKey ${key}`, "content-type": "application/json", ...init.headers },
    });

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const url = new URL(database.url);
    const replica = new URL(replicaAdminUrl as string);
    url.host = replica.host;
    replicaUrl = url.toString();
    await eventually(
      () => query(replicaUrl, "SELECT 1"),
      () => true,
    );
    server = await startServerProcess({
      DATABASE_URL: database.url,
      DATABASE_READ_URL: replicaUrl,
      DEMO_SUBSCRIBERS: "40",
      DEMO_NOTIFICATIONS: "40",
    });
    // The demo data was written to the primary; wait for the replica to have it.
    await eventually(
      () => query<{ n: number }>(replicaUrl, "SELECT count(*)::int AS n FROM notifications"),
      (rows) => rows[0]?.n === 40,
    );
  }, 120_000);

  afterAll(async () => {
    await replay("resume").catch(() => undefined);
    await server?.stop();
    await database?.drop();
  });

  it("says where reads and writes go when it starts", () => {
    expect(server.output()).toContain(`reads from ${replicaUrl}`);
  });

  it("writes to the primary and reads from the replica", async () => {
    const [subscriber] = await query<{ subscriber_id: string; first_name: string | null }>(
      database.url,
      "SELECT subscriber_id, first_name FROM subscribers WHERE NOT deleted ORDER BY id LIMIT 1",
    );
    if (!subscriber) throw new Error("no subscriber");
    const path = `/v2/subscribers?subscriberId=${encodeURIComponent(subscriber.subscriber_id)}`;
    await replay("pause");
    try {
      const patched = await api(`/v2/subscribers/${encodeURIComponent(subscriber.subscriber_id)}`, {
        method: "PATCH",
        body: JSON.stringify({ firstName: "Replicated" }),
      });
      expect(patched.status).toBe(200);
      expect(((await patched.json()) as { firstName: string }).firstName).toBe("Replicated");
      const [primary] = await query<{ first_name: string }>(
        database.url,
        "SELECT first_name FROM subscribers WHERE subscriber_id = $1",
        [subscriber.subscriber_id],
      );
      expect(primary?.first_name).toBe("Replicated");
      // The replica has not replayed the change: the API's read still shows the old name.
      const stale = (await (await api(path)).json()) as { data: { firstName: string | null }[] };
      expect(stale.data[0]?.firstName).toBe(subscriber.first_name);
    } finally {
      await replay("resume");
    }
    const fresh = await eventually(
      async () => ((await (await api(path)).json()) as { data: { firstName: string | null }[] }).data[0]?.firstName,
      (name) => name === "Replicated",
    );
    expect(fresh).toBe("Replicated");
  });

  it("accepts a key created on the primary before the replica has it", async () => {
    const { db } = await connect({ databaseUrl: database.url });
    await replay("pause");
    try {
      const environment = await query<{ id: string }>(
        database.url,
        "SELECT id FROM environments WHERE name = 'Production'",
      );
      const key = await new AccessStore(db).createApiKey(environment[0]?.id as string, generateApiKey());
      const response = await api("/v1/notifications?limit=1", {}, key);
      expect(response.status).toBe(200);
    } finally {
      await replay("resume");
      await db.destroy();
    }
  });
});
