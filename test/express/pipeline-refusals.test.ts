/**
 * The pipeline owns every refusal the contract makes without reading data (contract/model/inputs/ declares them), so
 * that handlers which refuse nothing still answer as the contract says: both cursors and a reversed window 400, a
 * window before the caller's retention 402 (`retentionOf`), a time zone the runtime does not know 422. And handlers
 * get date-times in one UTC form, whatever RFC 3339 form was sent, so that `new Date()` is always safe.
 */
import type { AddressInfo } from "node:net";
import { createFactories } from "@novu-query/contract/factories";
import { type AuthContext, createApp, createHttpServer, type Handlers, handler } from "@novu-query/express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const make = createFactories({ seed: 4 });
const subscriber = make.subscriber({ subscriberId: "sub-1" });

describe("the pipeline's refusals without data", () => {
  let baseUrl: string;
  let close: () => Promise<void>;
  const seen: Record<string, unknown>[] = [];
  // Handlers that refuse nothing and record what they were given.
  const handlers: Partial<Handlers> = {
    searchSubscribers: handler("searchSubscribers", async ({ query }) => {
      seen.push(query);
      return { status: 200, body: { data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false } };
    }),
    listNotifications: handler("listNotifications", async ({ query }) => {
      seen.push(query);
      return { status: 200, body: { data: [], hasMore: false, pageSize: query.limit, page: query.page } };
    }),
    patchSubscriber: handler("patchSubscriber", async ({ body }) => {
      seen.push(body as Record<string, unknown>);
      return { status: 200, body: subscriber };
    }),
  };
  beforeAll(async () => {
    const auth = { environmentId: "e".repeat(24), retention: 30 } as unknown as AuthContext;
    const app = createApp({
      handlers,
      authenticate: ({ apiKey }) => (apiKey === "k" ? auth : undefined),
      retentionOf: (caller) => (caller as unknown as { retention: number }).retention,
      services: () => ({}) as never,
    });
    const server = createHttpServer(app).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close?.());

  const send = (path: string, init: RequestInit = {}) =>
    fetch(baseUrl + path, { ...init, headers: { authorization: "ApiKey k", ...init.headers } });

  it("answers both cursors 400 in Novu's words, the handler never run", async () => {
    const before = seen.length;
    const response = await send(`/v2/subscribers?after=${"a".repeat(24)}&before=${"b".repeat(24)}`);
    expect(response.status).toBe(400);
    expect((await response.json()).message).toBe('Cannot specify both "before" and "after" cursors at the same time.');
    expect(seen.length).toBe(before);
  });

  it("answers a reversed window 400, and one older than the caller's retention 402", async () => {
    const reversed = await send("/v1/notifications?after=2026-11-20T10:00:00Z&before=2026-11-19T10:00:00Z");
    expect(reversed.status).toBe(400);
    expect((await reversed.json()).message).toBe(
      "Invalid date range: start date (after) must be earlier than end date (before)",
    );
    const old = await send("/v1/notifications?after=1970-01-01T00:00:00Z");
    expect(old.status).toBe(402);
    expect((await old.json()).message).toMatch(/^Requested date range exceeds your plan's retention period/);
  });

  it("answers a time zone the runtime does not know 422, naming body.timezone", async () => {
    const response = await send("/v2/subscribers/sub-1", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ timezone: "Mars/Olympus_Mons" }),
    });
    expect(response.status).toBe(422);
    expect((await response.json()).errors).toEqual({
      "body.timezone": {
        messages: ["Must be an IANA time zone such as Europe/Paris or UTC"],
        value: "Mars/Olympus_Mons",
      },
    });
  });

  it("hands date-times to the handler in one UTC form, whatever form was sent", async () => {
    const now = Date.now();
    const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
    const local = `${yesterday}T11:00:00+01`;
    const before = new Date(now).toISOString().replace("T", " ").replace("Z", "z");
    const response = await send(
      `/v1/notifications?after=${encodeURIComponent(local)}&before=${encodeURIComponent(before)}`,
    );
    expect(response.status).toBe(200);
    const query = seen.at(-1) as { after: string; before: string };
    expect(query.after).toBe(`${yesterday}T10:00:00.000Z`);
    expect(query.before).toBe(new Date(now).toISOString());
    expect(new Date(query.after).toISOString()).toBe(query.after);
  });
});
