/**
 * On Citus (CITUS=on: a coordinator and two workers, scripts/citus.sh), a request of one environment runs on one shard:
 * every statement the store sends for it, EXPLAINed on the coordinator with its parameters, plans one task (a table of
 * that environment's shard, or a reference table), or none (a statement on no table, such as an advisory lock). A
 * request's statements are those of every operation in each of its ways: each filter and order, cursors, pages, the
 * rare-term and the walking list, a get, a PATCH with and without an idempotency key, and the key's lookup.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onCitus } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** What the planner says of one statement: how many tasks (shards, or a reference table's node) each scan has. */
interface Planned {
  sql: string;
  tasks: number[];
}

describe.runIf(onCitus)("requests on Citus", () => {
  let server: TestServer;
  let client: pg.Client;
  let statements: { sql: string; parameters: readonly unknown[] }[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      driver: "postgres",
      config: { rateLimitPerMinute: 100_000 },
      onStatement: (sql, parameters) => statements.push({ sql, parameters }),
    });
    client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await server?.close();
  });

  /** The statements a request ran, each with its plan's task counts. */
  async function plannedFor(path: string, init: RequestInit = {}): Promise<Planned[]> {
    statements = [];
    const response = await server.request(path, init);
    expect(response.status, `${init.method ?? "GET"} ${path}`).toBeLessThan(500);
    await response.arrayBuffer();
    const planned: Planned[] = [];
    for (const { sql, parameters } of statements) {
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(sql)) continue;
      const { rows } = await client.query(`EXPLAIN ${sql}`, parameters as unknown[]);
      const plan = rows.map((row) => row["QUERY PLAN"] as string).join("\n");
      const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((match) => Number(match[1]));
      planned.push({ sql: sql.replace(/\s+/g, " ").slice(0, 160), tasks });
    }
    return planned;
  }

  /** The statements that plan more than one task in some scan: none, when a request stays on one shard. */
  const onSeveralShards = (planned: Planned[]) =>
    planned.filter((statement) => statement.tasks.some((count) => count > 1));

  it("runs every search, in each of its ways, on one shard", async () => {
    const someone = server.production.subscribers[7];
    const cursor = server.production.subscribers[20]?.id;
    const paths = [
      "/v2/subscribers",
      "/v2/subscribers?limit=5&orderBy=createdAt&orderDirection=ASC",
      "/v2/subscribers?orderBy=updatedAt",
      `/v2/subscribers?after=${cursor}`,
      `/v2/subscribers?before=${cursor}&includeCursor=true`,
      "/v2/subscribers?email=example.org",
      "/v2/subscribers?email=ma",
      "/v2/subscribers?email=q",
      "/v2/subscribers?name=an&phone=%2B49",
      `/v2/subscribers?subscriberId=${encodeURIComponent(someone?.subscriber_id ?? "")}`,
    ];
    for (const path of paths) {
      const planned = await plannedFor(path);
      expect(planned.length, path).toBeGreaterThan(0);
      expect(onSeveralShards(planned), path).toEqual([]);
    }
  });

  it("runs every list, in each of its ways, and a get on one shard", async () => {
    const notification = server.production.notifications[3];
    const subscriber = server.production.subscribers.find((s) => s.email && !s.deleted);
    const paths = [
      "/v1/notifications",
      "/v1/notifications?page=3&limit=7",
      "/v1/notifications?channels=sms",
      "/v1/notifications?channels=email&severity=high",
      "/v1/notifications?severity=none",
      `/v1/notifications?templates=${notification?.template_id}`,
      `/v1/notifications?emails=${encodeURIComponent(subscriber?.email ?? "")}`,
      `/v1/notifications?subscriberIds=${encodeURIComponent(subscriber?.subscriber_id ?? "")}`,
      "/v1/notifications?search=example.net",
      `/v1/notifications?transactionId=${notification?.transaction_id}`,
      "/v1/notifications?topicKey=release-notes",
      "/v1/notifications?after=2026-10-01T00:00:00Z&before=2026-11-01T00:00:00Z",
      `/v1/notifications/${notification?.id}`,
      "/v1/notifications/ffffffffffffffffffffffff",
    ];
    for (const path of paths) {
      const planned = await plannedFor(path);
      expect(planned.length, path).toBeGreaterThan(0);
      expect(onSeveralShards(planned), path).toEqual([]);
    }
  });

  it("runs a PATCH, with and without an idempotency key, and its replay on one shard", async () => {
    const subscriber = server.production.subscribers.find((s) => !s.deleted);
    const path = `/v2/subscribers/${encodeURIComponent(subscriber?.subscriber_id ?? "")}`;
    const patch = (body: object, key?: string) => ({
      method: "PATCH",
      headers: { "content-type": "application/json", ...(key && { "idempotency-key": key }) },
      body: JSON.stringify(body),
    });
    const version = async () =>
      (await client.query<{ version: number }>("SELECT version FROM subscribers WHERE id = $1", [subscriber?.id]))
        .rows[0]?.version;
    // [name, request, whether it updates the row, whether it runs as one call of patch_subscriber_at_once (D68)]
    const cases: [string, RequestInit, boolean, boolean][] = [
      ["a PATCH", patch({ firstName: "Routed" }), true, false],
      ["a PATCH with a key", patch({ lastName: "Once", email: "routed.once@example.com" }, "routing-key"), true, true],
      ["its replay", patch({ lastName: "Once", email: "routed.once@example.com" }, "routing-key"), false, true],
      // Sets no field: its UPDATE's condition is false for its values, which Citus routes to no shard, and a statement
      // that runs then is a distributed query from within one (answered 500 before: conformance patch.shape).
      ["an empty PATCH with a key", patch({}, "routing-empty"), false, true],
      ["a PATCH of data", patch({ data: { plan: "team" } }), true, false],
    ];
    for (const [name, init, updates, atOnce] of cases) {
      const before = await version();
      const planned = await plannedFor(path, init);
      expect((await version()) !== before, name).toBe(updates);
      const calls = planned.filter((statement) => /\bpatch_subscriber_at_once\(/i.test(statement.sql));
      expect(calls.length, name).toBe(atOnce ? 1 : 0);
      if (!atOnce) {
        // The PATCH's UPDATE, in the statement that also writes its order row (WITH "patched" AS (UPDATE ...)).
        expect(
          planned.some((statement) => /^(with "patched" as \()?update "subscribers"/i.test(statement.sql.trim())),
          name,
        ).toBe(true);
      }
      expect(onSeveralShards(planned), name).toEqual([]);
    }
    expect((await plannedFor("/v2/subscribers/nobody-here", patch({ firstName: "X" }))).length).toBeGreaterThan(0);
  });

  it("runs each statement inside the PATCH at once on one shard", async () => {
    // patch_subscriber_at_once runs on the coordinator, which plans each statement in it; with
    // citus.multi_task_query_log_level at error, a statement planned on more than one shard fails the call.
    const subscriber = server.production.subscribers.find((s) => !s.deleted);
    const call = (key: string, data?: object) =>
      client.query(
        "SELECT outcome FROM patch_subscriber_at_once($1, $2, $3, $4, 60, $5::text[], NULL, NULL, NULL, NULL, NULL, NULL, NULL, $6::jsonb)",
        [
          subscriber?.environment_id,
          subscriber?.subscriber_id,
          key,
          "f".repeat(64),
          data ? ["data"] : [],
          data ? JSON.stringify(data) : null,
        ],
      );
    await client.query("BEGIN");
    try {
      await client.query("SET LOCAL citus.multi_task_query_log_level = error");
      // The guard works: a statement on every shard fails under it.
      await expect(client.query("SAVEPOINT s; SELECT count(*) FROM subscribers")).rejects.toThrow(/multi-task/i);
      await client.query("ROLLBACK TO SAVEPOINT s");
      expect((await call("citus-at-once", { plan: "routed" })).rows[0]?.outcome).toBe("patched");
      expect((await call("citus-at-once", { plan: "routed" })).rows[0]?.outcome).toBe("stored");
      expect((await call("citus-at-once-2", { plan: "routed" })).rows[0]?.outcome).toBe("patched");
      expect((await call("citus-at-once-empty")).rows[0]?.outcome).toBe("patched");
      const absent = await client.query(
        "SELECT outcome FROM patch_subscriber_at_once($1, 'nobody-here', 'citus-absent', $2, 60, '{data}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, '{}')",
        [subscriber?.environment_id, "f".repeat(64)],
      );
      expect(absent.rows[0]?.outcome).toBe("absent");
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("distributes every table of an environment's data by environment, co-located, and the shared ones to every node", async () => {
    const { rows } = await client.query<{ table_name: string; citus_table_type: string; distribution_column: string }>(
      "SELECT table_name::text, citus_table_type, distribution_column FROM citus_tables WHERE table_name::text NOT LIKE 'notifications\\_%' ORDER BY 1",
    );
    expect(
      Object.fromEntries(rows.map((row) => [row.table_name, `${row.citus_table_type} ${row.distribution_column}`])),
    ).toEqual({
      api_keys: "reference <none>",
      environments: "reference <none>",
      idempotency_records: "distributed environment_id",
      notification_term_counts: "distributed environment_id",
      notifications: "distributed environment_id",
      organizations: "reference <none>",
      rate_limit_buckets: "distributed key_hash",
      subscriber_counts: "distributed environment_id",
      subscriber_email_domains: "distributed environment_id",
      subscriber_search_gram_counts: "distributed environment_id",
      subscriber_update_order: "distributed environment_id",
      subscribers: "distributed environment_id",
      workflows: "distributed environment_id",
    });
    const colocation = await client.query<{ groups: string }>(
      "SELECT count(DISTINCT colocationid)::text AS groups FROM pg_dist_partition WHERE partkey IS NOT NULL AND logicalrelid::text NOT IN ('rate_limit_buckets')",
    );
    expect(colocation.rows[0]?.groups).toBe("1");
  });
});
