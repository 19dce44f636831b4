/**
 * The framework-neutral query options (contract/query.ts, `/query`) under TanStack's own core, with no adapter: what
 * `/react-query`, `/vue-query` and `/svelte-query` hand to theirs, and what a Solid, Angular or home-grown query layer
 * spreads in as it is. Over MSW's stateful mode: the infinite options page to the end, and a PATCH retried after a 503
 * keeps its idempotency key (applied once), while two `mutate` calls get two keys.
 */
import { MutationObserver, QueryClient } from "@tanstack/query-core";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../contract/index.js";
import { createStatefulHandlers } from "../../contract/msw.js";
import { createQueryOptions, retryPolicy } from "../../contract/query.js";

const mock = createStatefulHandlers({ seed: 4, subscribers: 25, notifications: 23 });
const server = setupServer(...mock.handlers);
const keys: (string | null)[] = [];
server.events.on("request:start", ({ request }) => {
  if (request.method === "PATCH") keys.push(request.headers.get("idempotency-key"));
});
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  mock.reset();
  keys.length = 0;
});
afterAll(() => server.close());

const queries = createQueryOptions(createClient({ baseUrl: "https://api.example.com", apiKey: "test" }));

describe("the neutral query options under @tanstack/query-core", () => {
  it("page a search by cursor and a list by number, each to its end", async () => {
    const client = new QueryClient();
    // Up to ten pages: fetching stops where getNextPageParam says there is no next page.
    const search = await client.fetchInfiniteQuery({ ...queries.searchSubscribersInfinite({ limit: 10 }), pages: 10 });
    expect(search.pages.map((page) => page.data.length)).toEqual([10, 10, 5]);
    const list = await client.fetchInfiniteQuery({ ...queries.listNotificationsInfinite({ limit: 10 }), pages: 10 });
    expect(list.pages.map((page) => page.data.length)).toEqual([10, 10, 3]);
    client.clear();
  });

  it("retry a PATCH whose answer was lost with the same idempotency key; another mutate gets a new one", async () => {
    const client = new QueryClient();
    const first = (await client.fetchQuery(queries.searchSubscribers({ limit: 1 }))).data[0];
    if (!first) throw new Error("the mock has no subscriber");
    server.use(
      http.patch("*/v2/subscribers/:subscriberId", () => new HttpResponse("unavailable", { status: 503 }), {
        once: true,
      }),
    );
    const rename = new MutationObserver(client, { ...queries.patchSubscriber(), ...retryPolicy({ baseDelayMs: 5 }) });
    const patched = await rename.mutate({ subscriberId: first.subscriberId, body: { firstName: "Ada" } });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(patched.__v).toBe(first.__v + 1);
    await rename.mutate({ subscriberId: first.subscriberId, body: { firstName: "Grace" } });
    expect(keys).toHaveLength(3);
    expect(keys[2]).not.toBe(keys[0]);
    client.clear();
  });
});
