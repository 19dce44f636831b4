/**
 * Graceful overload (the skeleton's admission turns, server/cost.ts, STATEMENT_TIMEOUT_MS): past the bound on work in flight a request is
 * answered 503 with Retry-After at once, expensive requests have turns of their own so cheap ones go on, and a
 * statement past the timeout is cancelled and answered 503, with nothing of a PATCH kept (its idempotency record
 * neither), so a retry with the same key applies it once.
 */
import { availableParallelism } from "node:os";
import { type Handlers, messages } from "@novu-query/express";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import type { ErrorDto, Subscriber } from "../../generated/schema.js";
import { expensiveTurns, loadConfig } from "../../server/config.js";
import { costOf } from "../../server/cost.js";
import { handlers as realHandlers } from "../../server/handlers/index.js";
import { openStore } from "../../server/store/store.js";
import { createPostgresDatabase, drivers, onCitus } from "../support/databases.js";
import { gate } from "../support/gate.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";

const errorDto = validatorAt(createSpecAjv(), "/components/schemas/ErrorDto");

async function expectBusy(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("1");
  const body = await json<ErrorDto>(response);
  expect(errorDto(body), JSON.stringify(errorDto.errors)).toBe(true);
  expect(body).toMatchObject({ statusCode: 503, error: "Service Unavailable", message: messages.overloaded });
}

describe("costOf", () => {
  const input = (query: Record<string, unknown>) => ({ query, path: {}, headers: {}, body: undefined }) as never;
  it("calls substring filters and deep offset pages expensive, and the rest cheap", () => {
    expect(costOf("searchSubscribers", input({ email: "ada" }), 10_000)).toBe("expensive");
    expect(costOf("searchSubscribers", input({ name: "ada" }), 10_000)).toBe("expensive");
    expect(costOf("searchSubscribers", input({ phone: "555" }), 10_000)).toBe("expensive");
    expect(costOf("searchSubscribers", input({ subscriberId: "ada", limit: 10 }), 10_000)).toBe("cheap");
    expect(costOf("listNotifications", input({ search: "ada", page: 0, limit: 10 }), 10_000)).toBe("expensive");
    expect(costOf("listNotifications", input({ page: 1000, limit: 10 }), 10_000)).toBe("expensive");
    expect(costOf("listNotifications", input({ page: 999, limit: 10 }), 10_000)).toBe("cheap");
    expect(costOf("listNotifications", input({ channels: ["email"], page: 0, limit: 10 }), 10_000)).toBe("cheap");
    expect(costOf("getNotification", input({}), 10_000)).toBe("cheap");
  });
});

describe("MAX_EXPENSIVE_IN_FLIGHT's default", () => {
  it("is a quarter of the turns, at most half the cores, and at least one", () => {
    expect(expensiveTurns(10, 64)).toBe(2);
    expect(expensiveTurns(40, 64)).toBe(10);
    expect(expensiveTurns(10, 2)).toBe(1);
    expect(expensiveTurns(40, 6)).toBe(3);
    expect(expensiveTurns(10, 1)).toBe(1);
    expect(expensiveTurns(3, 64)).toBe(1);
  });

  it("is what the server reads when it is unset, and the variable when it is set", () => {
    const expected = expensiveTurns(loadConfig({}).maxInFlight, availableParallelism());
    expect(loadConfig({}).maxExpensiveInFlight).toBe(expected);
    expect(loadConfig({ MAX_EXPENSIVE_IN_FLIGHT: "5" }).maxExpensiveInFlight).toBe(5);
    expect(loadConfig({ MAX_IN_FLIGHT: "400" }).maxExpensiveInFlight).toBe(
      Math.min(100, Math.floor(availableParallelism() / 2)) || 1,
    );
  });
});

// PGlite or no database: run in `npm test`, nothing to run on Citus (CITUS=on).
describe.skipIf(onCitus)("the server under overload", () => {
  let server: TestServer;
  // Searches whose subscriberId or email starts with "hold" wait for their gate: requests that stay in flight.
  const holds = new Map<string, ReturnType<typeof gate>>();
  const held = (term: string) => {
    const g = gate();
    holds.set(term, g);
    return g;
  };
  const handlers: Handlers = {
    ...realHandlers,
    searchSubscribers: async (input, context) => {
      const term = input.query.subscriberId ?? input.query.email ?? "";
      await holds.get(term)?.opened;
      return realHandlers.searchSubscribers(input, context);
    },
  };

  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      handlers,
      config: {
        maxInFlight: 2,
        maxQueued: 1,
        queueTimeoutMs: 300,
        maxExpensiveInFlight: 1,
        maxExpensiveQueued: 0,
      },
    });
  });
  afterAll(() => server?.close());

  it("refuses a second expensive request at once while cheap ones go on, then serves both kinds again", async () => {
    const g = held("hold-expensive");
    const first = server.request("/v2/subscribers?email=hold-expensive");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const began = Date.now();
    const second = await server.request("/v2/subscribers?email=other");
    expect(Date.now() - began).toBeLessThan(250); // not made to wait for the queue timeout (300 ms)
    await expectBusy(second);
    expect((await server.request("/v1/notifications?limit=2")).status).toBe(200);
    g.open();
    expect((await first).status).toBe(200);
    expect((await server.request("/v2/subscribers?email=other")).status).toBe(200);
  });

  it("queues one request past the bound, refuses the next at once, and the queued one after the wait", async () => {
    const page = await json<{ data: { _id: string }[] }>(await server.request("/v1/notifications?limit=1"));
    const notification = `/v1/notifications/${page.data[0]?._id}`;
    const a = held("hold-a");
    const b = held("hold-b");
    const first = server.request("/v2/subscribers?subscriberId=hold-a");
    const second = server.request("/v2/subscribers?subscriberId=hold-b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const queued = server.request(notification);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expectBusy(await server.request("/v1/notifications?limit=1"));
    await expectBusy(await queued); // waited 300 ms for a turn
    a.open();
    b.open();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect((await server.request(notification)).status).toBe(200);
  });

  it("applies exactly the PATCHes it answered 200 of a burst it partly refused", async () => {
    const page = await json<{ data: Subscriber[] }>(await server.request("/v2/subscribers?limit=1"));
    const subscriber = page.data[0] as Subscriber;
    const path = `/v2/subscribers/${encodeURIComponent(subscriber.subscriberId)}`;
    // Both turns held: of the burst, one PATCH waits and is served once they are released, the rest are refused.
    const holds = [held("hold-e"), held("hold-f")];
    const holding = [
      server.request("/v2/subscribers?subscriberId=hold-e"),
      server.request("/v2/subscribers?subscriberId=hold-f"),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const burst = Array.from({ length: 12 }, (_, i) =>
      server.request(path, jsonPatch({ lastName: `Burst ${i}` }, { "idempotency-key": `burst-${Date.now()}-${i}` })),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const hold of holds) hold.open();
    await Promise.all(holding);
    const answers = await Promise.all(burst);
    const statuses = answers.map((response) => response.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses).toContain(503);
    expect(statuses).toContain(200);
    const after = await json<{ data: Subscriber[] }>(
      await server.request(`/v2/subscribers?subscriberId=${encodeURIComponent(subscriber.subscriberId)}`),
    );
    expect(after.data[0]?.__v).toBe(subscriber.__v + statuses.filter((status) => status === 200).length);
  });

  it("answers a queued request once a turn frees up within the wait", async () => {
    const a = held("hold-c");
    const b = held("hold-d");
    const first = server.request("/v2/subscribers?subscriberId=hold-c");
    const second = server.request("/v2/subscribers?subscriberId=hold-d");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const queued = server.request("/v1/notifications?limit=1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    a.open();
    expect((await queued).status).toBe(200);
    b.open();
    await Promise.all([first, second]);
  });
});

describe.runIf(drivers.includes("postgres"))("the statement timeout (PostgreSQL)", () => {
  let server: TestServer;
  let locker: pg.Client;
  const timeoutMs = 300;

  beforeAll(async () => {
    server = await startTestServer({ driver: "postgres", config: { statementTimeoutMs: timeoutMs } });
    locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await server?.close();
  });

  /** Runs `during` while another session holds `lock`, then releases it. */
  async function whileLocked<T>(lock: string, during: () => Promise<T>): Promise<T> {
    await locker.query("BEGIN");
    await locker.query(lock);
    try {
      return await during();
    } finally {
      await locker.query("ROLLBACK");
    }
  }

  it("cancels a read past the timeout and answers 503 with Retry-After within about the timeout", async () => {
    const began = Date.now();
    const response = await whileLocked("LOCK TABLE notifications IN ACCESS EXCLUSIVE MODE", () =>
      server.request("/v1/notifications?limit=5"),
    );
    const tookMs = Date.now() - began;
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    const body = await json<ErrorDto>(response);
    expect(errorDto(body), JSON.stringify(errorDto.errors)).toBe(true);
    expect(body.message).toBe(messages.statementTimeout(timeoutMs));
    expect(tookMs).toBeGreaterThanOrEqual(timeoutMs - 20);
    expect(tookMs).toBeLessThan(10_000);
    expect((await server.request("/v1/notifications?limit=5")).status).toBe(200);
  });

  it("keeps nothing of a PATCH that timed out, nor its idempotency record: the retry applies it once", async () => {
    const first = await json<{ data: Subscriber[] }>(await server.request("/v2/subscribers?limit=1"));
    const subscriberId = first.data[0]?.subscriberId ?? "";
    const path = `/v2/subscribers/${encodeURIComponent(subscriberId)}`;
    const before = await json<{ data: Subscriber[] }>(
      await server.request(`/v2/subscribers?subscriberId=${encodeURIComponent(subscriberId)}`),
    );
    const key = `timeout-${Date.now()}`;
    const patch = () => server.request(path, jsonPatch({ firstName: "Timed Out" }, { "idempotency-key": key }));
    const refused = await whileLocked(
      `SELECT 1 FROM subscribers WHERE environment_id = '${server.production.environmentId}'
        AND subscriber_id = '${subscriberId.replaceAll("'", "''")}' FOR UPDATE`,
      patch,
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("idempotency-key")).toBe(key);
    expect((await json<ErrorDto>(refused)).message).toBe(messages.statementTimeout(timeoutMs));
    const records = await locker.query(
      "SELECT count(*)::int AS n FROM idempotency_records WHERE idempotency_key = $1",
      [key],
    );
    expect(records.rows[0].n).toBe(0);
    const unchanged = await json<{ data: Subscriber[] }>(
      await server.request(`/v2/subscribers?subscriberId=${encodeURIComponent(subscriberId)}`),
    );
    expect(unchanged.data[0]).toEqual(before.data[0]);

    const applied = await patch();
    expect(applied.status).toBe(200);
    expect(applied.headers.get("idempotency-replay")).toBeNull();
    const body = await json<Subscriber>(applied);
    expect(body.firstName).toBe("Timed Out");
    expect(body.__v).toBe((before.data[0]?.__v ?? 0) + 1);
    const replay = await patch();
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect((await json<Subscriber>(replay)).__v).toBe(body.__v);
  });

  it("leaves migrations out of the timeout, and holds every other statement to it", async () => {
    const database = await createPostgresDatabase();
    try {
      // Every migration takes longer than 1 ms.
      const opened = await openStore({ databaseUrl: database.url, totalCountCap: 10, statementTimeoutMs: 1 });
      try {
        await expect(sql`SELECT pg_sleep(0.05)`.execute(opened.store.db)).rejects.toMatchObject({ code: "57014" });
      } finally {
        await opened.close();
      }
    } finally {
      await database.drop();
    }
  });
});
