import { subscriberCursorOf } from "@novu-query/contract/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorDto, SearchSubscribersResponse, Subscriber, ValidationErrorDto } from "../../generated/schema.js";
import { drivers } from "../support/databases.js";
import { type Direction, expectedSubscribers, type OrderBy } from "../support/expect-subscribers.js";
import { json, startTestServer, type TestServer } from "../support/server.js";

const orders: [OrderBy, Direction][] = [
  ["_id", "DESC"],
  ["_id", "ASC"],
  ["createdAt", "DESC"],
  ["createdAt", "ASC"],
  ["updatedAt", "DESC"],
  ["updatedAt", "ASC"],
];

describe.each(drivers)("GET /v2/subscribers (%s)", (driver) => {
  let server: TestServer;
  const search = async (query: string) => {
    const response = await server.request(`/v2/subscribers?${query}`);
    expect(response.status).toBe(200);
    return json<SearchSubscribersResponse>(response);
  };

  beforeAll(async () => {
    server = await startTestServer({ driver, config: { totalCountCap: 100 } });
  });
  afterAll(() => server?.close());

  it("has ties in the sort columns to paginate through", () => {
    const created = server.production.subscribers.map((s) => s.created_at);
    expect(new Set(created).size).toBeLessThan(created.length);
  });

  it("defaults to 10 rows in descending _id order, with no previous page", async () => {
    const page = await search("");
    const expected = expectedSubscribers(server.production).slice(0, 10);
    expect(page.data.map((s) => s._id)).toEqual(expected.map((s) => s.id));
    expect(page.previous).toBeNull();
    expect(page.next).toBe(expected[9]?.id);
    expect(page.totalCount).toBe(100);
    expect(page.totalCountCapped).toBe(true);
  });

  it.each(orders)("walks every row once forwards and backwards by %s %s", async (orderBy, orderDirection) => {
    const expected = expectedSubscribers(server.production, { orderBy, orderDirection }).map((s) => s.id);
    const base = `limit=7&orderBy=${orderBy}&orderDirection=${orderDirection}`;
    const pages: SearchSubscribersResponse[] = [];
    let cursor: string | null = null;
    do {
      const page: SearchSubscribersResponse = await search(cursor ? `${base}&after=${cursor}` : base);
      pages.push(page);
      cursor = page.next;
    } while (cursor && pages.length < 100);
    expect(pages.flatMap((p) => p.data.map((s) => s._id))).toEqual(expected);
    expect(pages[0]?.previous).toBeNull();
    expect(pages.at(-1)?.next).toBeNull();
    // The first row's cursor: its `_id`, and in an `updatedAt` order its `updatedAt` too.
    for (const page of pages.slice(1))
      expect(page.previous).toBe(subscriberCursorOf(page.data[0] as Subscriber, orderBy));

    // Backwards from the last page with `before=<previous>` gives back exactly the same pages.
    const backwards: SearchSubscribersResponse[] = [pages.at(-1) as SearchSubscribersResponse];
    let previous = backwards[0]?.previous ?? null;
    while (previous) {
      const page: SearchSubscribersResponse = await search(`${base}&before=${previous}`);
      backwards.unshift(page);
      previous = page.previous;
    }
    expect(backwards.map((p) => p.data.map((s) => s._id))).toEqual(pages.map((p) => p.data.map((s) => s._id)));
    expect(backwards[0]?.previous).toBeNull();
  });

  it("includes the cursor row itself with includeCursor=true, in both directions", async () => {
    const expected = expectedSubscribers(server.production).map((s) => s.id);
    const cursor = expected[20] as string;
    const after = await search(`limit=3&after=${cursor}&includeCursor=true`);
    expect(after.data.map((s) => s._id)).toEqual(expected.slice(20, 23));
    expect(after.previous).toBe(cursor);
    const before = await search(`limit=3&before=${cursor}&includeCursor=true`);
    expect(before.data.map((s) => s._id)).toEqual(expected.slice(18, 21));
    expect(before.next).toBe(cursor);
    const excluded = await search(`limit=3&after=${cursor}`);
    expect(excluded.data.map((s) => s._id)).toEqual(expected.slice(21, 24));
  });

  it("returns an empty page for a cursor that names no subscriber of the environment", async () => {
    const theirs = server.development.subscribers[0]?.id as string;
    for (const cursor of ["ffffffffffffffffffffffff", theirs]) {
      const page = await search(`after=${cursor}`);
      expect(page.data).toEqual([]);
      expect(page.next).toBeNull();
      expect(page.previous).toBeNull();
    }
  });

  it.each([
    ["email", "example.org", (s: { email: string | null }) => (s.email ?? "").toLowerCase().includes("example.org")],
    ["email", "EXAMPLE.NET", (s: { email: string | null }) => (s.email ?? "").toLowerCase().includes("example.net")],
    ["phone", "+1", (s: { phone: string | null }) => (s.phone ?? "").includes("+1")],
  ] as const)("filters %s by case-insensitive substring (%s)", async (name, value, predicate) => {
    const page = await search(`limit=100&${name}=${encodeURIComponent(value)}`);
    const expected = expectedSubscribers(server.production, { filter: predicate }).map((s) => s.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(page.data.map((s) => s._id)).toEqual(expected.slice(0, 100));
    expect(page.totalCount).toBe(Math.min(expected.length, 100));
  });

  it("filters by name across first and last name, ignoring case", async () => {
    const someone = expectedSubscribers(server.production, { filter: (s) => !!s.first_name && !!s.last_name })[3];
    if (!someone) throw new Error("no subscriber with a full name");
    const needle = `${someone.first_name?.slice(-2)} ${someone.last_name?.slice(0, 2)}`.toUpperCase();
    const page = await search(`limit=100&name=${encodeURIComponent(needle)}`);
    const expected = expectedSubscribers(server.production, {
      filter: (s) => `${s.first_name ?? ""} ${s.last_name ?? ""}`.toLowerCase().includes(needle.toLowerCase()),
    });
    expect(page.data.map((s) => s._id)).toEqual(expected.map((s) => s.id));
    expect(page.data.map((s) => s._id)).toContain(someone.id);
  });

  it("filters subscriberId exactly and ANDs the filters", async () => {
    const someone = expectedSubscribers(server.production, { filter: (s) => s.email !== null })[5];
    if (!someone?.email) throw new Error("no subscriber with an email");
    const exact = await search(`subscriberId=${encodeURIComponent(someone.subscriber_id)}`);
    expect(exact.data.map((s) => s._id)).toEqual([someone.id]);
    const partial = await search(`subscriberId=${encodeURIComponent(someone.subscriber_id.slice(0, -1))}`);
    expect(partial.data.map((s) => s._id)).not.toContain(someone.id);
    const both = await search(
      `subscriberId=${encodeURIComponent(someone.subscriber_id)}&email=${encodeURIComponent("no-such-text")}`,
    );
    expect(both.data).toEqual([]);
    expect(both.totalCount).toBe(0);
  });

  it("matches %, _ and \\ literally", async () => {
    for (const value of ["%", "_", "\\", "%@%", "a_b"]) {
      const page = await search(`email=${encodeURIComponent(value)}`);
      const expected = expectedSubscribers(server.production, { filter: (s) => (s.email ?? "").includes(value) });
      expect(page.totalCount, value).toBe(expected.length);
    }
    const underscore = await search("limit=100&email=_");
    const withUnderscore = expectedSubscribers(server.production, { filter: (s) => (s.email ?? "").includes("_") });
    expect(underscore.data.map((s) => s._id)).toEqual(withUnderscore.slice(0, 100).map((s) => s.id));
  });

  it("never returns soft-deleted subscribers", async () => {
    const deleted = server.production.subscribers.find((s) => s.deleted);
    if (!deleted) throw new Error("demo data has no deleted subscriber");
    const page = await search(`subscriberId=${encodeURIComponent(deleted.subscriber_id)}`);
    expect(page.data.filter((s) => s._id === deleted.id)).toEqual([]);
    expect((await search(`after=${deleted.id}`)).data).toEqual([]);
  });

  it("counts every matching row, not just the page, and caps the count", async () => {
    const all = expectedSubscribers(server.production).length;
    expect(all).toBeGreaterThan(100);
    const capped = await search("limit=1");
    expect(capped).toMatchObject({ totalCount: 100, totalCountCapped: true });
    const few = expectedSubscribers(server.production, {
      filter: (s) => (s.email ?? "").includes("example.net"),
    }).length;
    expect(few).toBeLessThanOrEqual(100);
    const counted = await search("limit=1&email=example.net");
    expect(counted).toMatchObject({ totalCount: few, totalCountCapped: false });
    const afterCursor = await search(`limit=1&email=example.net&after=${counted.next}`);
    expect(afterCursor.totalCount).toBe(few);
  });

  it("answers both cursors with 400", async () => {
    const [a, b] = expectedSubscribers(server.production);
    const response = await server.request(`/v2/subscribers?after=${a?.id}&before=${b?.id}`);
    expect(response.status).toBe(400);
    expect((await json<ErrorDto>(response)).message).toBe(
      'Cannot specify both "before" and "after" cursors at the same time.',
    );
  });

  it.each([
    ["limit=0", "query.limit"],
    ["limit=101", "query.limit"],
    ["limit=ten", "query.limit"],
    ["orderDirection=desc", "query.orderDirection"],
    ["orderDirection=UP", "query.orderDirection"],
    ["orderBy=email", "query.orderBy"],
    ["includeCursor=maybe", "query.includeCursor"],
    ["after=not-an-id", "query.after"],
    ["email=", "query.email"],
  ])("answers %s with 422 naming %s", async (query, key) => {
    const response = await server.request(`/v2/subscribers?${query}`);
    expect(response.status).toBe(422);
    const body = await json<ValidationErrorDto>(response);
    expect(Object.keys(body.errors)).toEqual([key]);
  });
});
