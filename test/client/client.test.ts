import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ApiRequestError,
  allNotifications,
  allSubscribers,
  createClient,
  listNotificationPages,
  newIdempotencyKey,
  searchSubscriberPages,
} from "../../contract/index.js";
import type { PrismProcess } from "../../mock/prism.js";
import { startMock } from "../../scripts/processes.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("the typed client against the reference server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite" });
  });
  afterAll(() => server?.close());

  it("sends the API key and returns typed data", async () => {
    const api = createClient({ baseUrl: `${server.baseUrl}/`, apiKey: server.production.apiKey });
    const { data, error, response } = await api.GET("/v2/subscribers", { params: { query: { limit: 3 } } });
    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    expect(data?.data).toHaveLength(3);
    expect(data?.data[0]?._environmentId).toBe(server.production.environmentId);
  });

  it("returns error answers typed as the contract's error bodies", async () => {
    const api = createClient({ baseUrl: server.baseUrl, apiKey: "0".repeat(32) });
    const { data, error, response } = await api.GET("/v1/notifications");
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error?.message).toBe("API Key not found");
  });

  /** A client of the server that records the idempotency key of every request it sends, and a subscriber to patch. */
  function recordingKeys() {
    const seen: (string | null)[] = [];
    const api = createClient({
      baseUrl: server.baseUrl,
      apiKey: server.production.apiKey,
      fetch: (request) => {
        seen.push(request.headers.get("idempotency-key"));
        return fetch(request);
      },
    });
    const target = server.production.subscribers.find((s) => !s.deleted) as { subscriber_id: string };
    return { api, seen, target };
  }

  it("gives every PATCH an idempotency key unless the caller chose one", async () => {
    const { api, seen, target } = recordingKeys();
    const path = { params: { path: { subscriberId: target.subscriber_id } } } as const;
    const first = await api.PATCH("/v2/subscribers/{subscriberId}", { ...path, body: { lastName: "Client" } });
    const second = await api.PATCH("/v2/subscribers/{subscriberId}", { ...path, body: { lastName: "Client" } });
    expect(seen[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]).not.toBe(seen[0]);
    expect(second.response.headers.get("idempotency-replay")).toBeNull();
    expect(second.data?.__v).toBe(first.data?.__v);
    const chosen = { ...path, body: { lastName: "Chosen" }, headers: { "idempotency-key": "client-chosen-key" } };
    await api.PATCH("/v2/subscribers/{subscriberId}", chosen);
    const replay = await api.PATCH("/v2/subscribers/{subscriberId}", chosen);
    expect(seen.at(-1)).toBe("client-chosen-key");
    expect(replay.response.headers.get("idempotency-replay")).toBe("true");
  });

  it("still sends a PATCH where crypto.randomUUID is missing (plain http on a LAN address)", async () => {
    const { getRandomValues } = globalThis.crypto;
    vi.stubGlobal("crypto", { getRandomValues: getRandomValues.bind(globalThis.crypto) });
    try {
      expect(globalThis.crypto.randomUUID).toBeUndefined();
      const { api, seen, target } = recordingKeys();
      const { response } = await api.PATCH("/v2/subscribers/{subscriberId}", {
        params: { path: { subscriberId: target.subscriber_id } },
        body: { lastName: "Insecure origin" },
      });
      expect(response.status).toBe(200);
      expect(seen[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("walks every subscriber with the cursor iterator", async () => {
    const api = createClient({ baseUrl: server.baseUrl, apiKey: server.production.apiKey });
    const ids: string[] = [];
    for await (const subscriber of allSubscribers(api, { limit: 17, orderBy: "createdAt" })) ids.push(subscriber._id);
    const expected = server.production.subscribers.filter((s) => !s.deleted).map((s) => s.id);
    expect(ids).toHaveLength(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected));
    let pages = 0;
    for await (const page of searchSubscriberPages(api, { limit: 50 })) pages += page.data.length > 0 ? 1 : 0;
    expect(pages).toBe(Math.ceil(expected.length / 50));
  });

  it("walks every notification with the page iterator", async () => {
    const api = createClient({ baseUrl: server.baseUrl, apiKey: server.production.apiKey });
    const ids: string[] = [];
    for await (const notification of allNotifications(api, { limit: 50 })) ids.push(notification._id);
    expect(new Set(ids)).toEqual(new Set(server.production.notifications.map((n) => n.id)));
    expect(ids).toHaveLength(server.production.notifications.length);
    const emails: string[] = [];
    for await (const page of listNotificationPages(api, { channels: ["email"], limit: 50 })) {
      for (const n of page.data) emails.push(...n.channels);
    }
    expect(emails).toContain("email");
  });

  it("throws ApiRequestError from an iterator when the API refuses", async () => {
    const api = createClient({ baseUrl: server.baseUrl, apiKey: server.production.apiKey });
    const walk = allSubscribers(api, { limit: 500 });
    await expect(walk.next()).rejects.toBeInstanceOf(ApiRequestError);
    await expect(allNotifications(api, { limit: 0 }).next()).rejects.toMatchObject({ status: 422 });
  });
});

describe("the typed client against the Prism mock", () => {
  let mock: PrismProcess;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock?.stop());

  it("reads the named examples, and the one asked for with Prefer", async () => {
    const api = createClient({ baseUrl: mock.url, apiKey: "any" });
    const { data } = await api.GET("/v1/notifications/{notificationId}", {
      params: { path: { notificationId: "66b7e1d0c3a2b1f0e9d8c7b6" } },
    });
    expect(data?.template?.name).toBe("Comment digest");
    const empty = await api.GET("/v2/subscribers", { headers: { Prefer: "example=SearchSubscribersEmpty" } });
    expect(empty.data).toEqual({ data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false });
    const notFound = await api.GET("/v1/notifications/{notificationId}", {
      params: { path: { notificationId: "66b7e1d0c3a2b1f0e9d8c7b6" } },
      headers: { Prefer: "code=404" },
    });
    expect(notFound.error?.message).toBe("Notification not found");
  });

  it("walks the mock's pages without looping", async () => {
    const api = createClient({ baseUrl: mock.url, apiKey: "any" });
    let pages = 0;
    for await (const _ of listNotificationPages(api, {})) if (++pages > 3) break;
    expect(pages).toBeGreaterThan(1);
  });
});

describe("newIdempotencyKey", () => {
  it("makes version 4 UUIDs from getRandomValues when randomUUID is missing, all different", () => {
    const source = { getRandomValues: (array: Uint8Array<ArrayBuffer>) => globalThis.crypto.getRandomValues(array) };
    const keys = Array.from({ length: 1000 }, () => newIdempotencyKey(source));
    for (const key of keys)
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("sets the version and variant bits whatever the random bytes are", () => {
    const ones = { getRandomValues: (array: Uint8Array) => array.fill(0xff) };
    expect(newIdempotencyKey(ones)).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
    const zeros = { getRandomValues: (array: Uint8Array) => array.fill(0) };
    expect(newIdempotencyKey(zeros)).toBe("00000000-0000-4000-8000-000000000000");
  });
});
