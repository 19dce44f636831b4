/**
 * Every statement the server sends through node-postgres goes through its callback form (D77,
 * server/store/pg-callback-queries.ts): the promise form gives each Query its callback after making it, which keeps
 * what the statement read (its rows' strings above all) from the young generation's collections until a full one.
 * Held at two levels: the wrapper on a stand-in client (what it passes on, what its promise answers), and the real app
 * on PostgreSQL, whose every call of node-postgres's `Client#query` over the four operations, a PATCH with its
 * idempotency record and a failing statement is recorded.
 */
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryThroughCallback } from "../../server/store/pg-callback-queries.js";
import { drivers } from "../support/databases.js";
import { jsonPatch, startTestServer, type TestServer } from "../support/server.js";

/** A client whose `query` records its arguments and answers through a callback, as node-postgres's does. */
function standIn(answer: (args: unknown[]) => { error?: Error; result?: unknown }) {
  const calls: unknown[][] = [];
  const client = {
    query(...args: unknown[]) {
      calls.push(args);
      const callback = args[args.length - 1];
      if (typeof callback === "function") {
        const { error, result } = answer(args);
        queueMicrotask(() => callback(error ?? null, result));
        return undefined;
      }
      return "passed through";
    },
  };
  queryThroughCallback(client as unknown as pg.ClientBase);
  return { client: client as unknown as { query(...args: unknown[]): unknown }, calls };
}

describe("a client's statements through their callback form", () => {
  it("gives node-postgres a callback for each form without one, and answers with a promise of the result", async () => {
    const { client, calls } = standIn((args) => ({ result: { rows: [{ args: args.length }] } }));
    await expect(client.query("SELECT 1")).resolves.toEqual({ rows: [{ args: 2 }] });
    await expect(client.query("SELECT $1", [1])).resolves.toEqual({ rows: [{ args: 3 }] });
    await expect(client.query({ name: "s1", text: "SELECT $1", values: [1] })).resolves.toEqual({
      rows: [{ args: 2 }],
    });
    expect(calls.map((args) => typeof args[args.length - 1])).toEqual(["function", "function", "function"]);
    expect(calls.map((args) => args.slice(0, -1))).toEqual([
      ["SELECT 1"],
      ["SELECT $1", [1]],
      [{ name: "s1", text: "SELECT $1", values: [1] }],
    ]);
  });

  it("rejects with node-postgres's own error", async () => {
    const failure = Object.assign(new Error('relation "nowhere" does not exist'), { code: "42P01" });
    const { client } = standIn(() => ({ error: failure }));
    await expect(client.query("SELECT * FROM nowhere", [])).rejects.toBe(failure);
  });

  it("passes a call with a callback, or a submittable, through as it is", () => {
    const { client, calls } = standIn(() => ({ result: {} }));
    const callback = () => {};
    const cursor = { submit() {} };
    client.query("SELECT 1", [], callback);
    expect(client.query(cursor)).toBe("passed through");
    expect(calls).toEqual([["SELECT 1", [], callback], [cursor]]);
  });
});

describe.runIf(drivers.includes("postgres"))("the server's statements on PostgreSQL", () => {
  let server: TestServer;
  /** Each call of node-postgres's Client#query since the server started: whether it came with a callback. */
  const forms: { text: string; callback: boolean }[] = [];
  const original = pg.Client.prototype.query;

  beforeAll(async () => {
    // Before the pool connects: each client's `query` is bound to this when it connects (pg-callback-queries.ts).
    pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string; submit?: unknown };
      const submits = typeof first === "object" && typeof first?.submit === "function";
      forms.push({
        text: typeof first === "string" ? first : String(first?.text ?? first),
        callback: submits || typeof args[args.length - 1] === "function",
      });
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    server = await startTestServer({ driver: "postgres", demo: { subscribers: 20, notifications: 20 } });
  });
  afterAll(async () => {
    pg.Client.prototype.query = original;
    await server?.close();
  });

  it("are all sent with a callback: the four operations, a keyed PATCH, a failing statement", async () => {
    forms.length = 0;
    const list = await server.request("/v1/notifications?limit=5");
    expect(list.status).toBe(200);
    const notificationId = ((await list.json()) as { data: { _id: string }[] }).data[0]?._id;
    expect((await server.request(`/v1/notifications/${notificationId}`)).status).toBe(200);
    expect((await server.request("/v1/notifications?channels=email&severity=high")).status).toBe(200);
    const search = await server.request("/v2/subscribers?limit=3&name=a");
    expect(search.status).toBe(200);
    const subscriberId = ((await search.json()) as { data: { subscriberId: string }[] }).data[0]?.subscriberId;
    const patched = await server.request(
      `/v2/subscribers/${subscriberId}`,
      jsonPatch({ data: { plan: "pro" } }, { "idempotency-key": "callback-form-1" }),
    );
    expect(patched.status).toBe(200);
    await expect(sql`SELECT * FROM nowhere`.execute(server.store.db)).rejects.toMatchObject({ code: "42P01" });

    // The requests above sent statements (their count alone is not the point: every one of them is).
    expect(forms.length).toBeGreaterThan(6);
    const withoutCallback = forms.filter((form) => !form.callback).map((form) => form.text.slice(0, 120));
    expect(withoutCallback, "statements sent through node-postgres's promise form (D77)").toEqual([]);
  });
});
