/**
 * Cursor walks while rows change (#47.6). A walk by `updatedAt` whose cursor row is patched between pages used to end
 * (ascending: after 10 of 777 rows) or start over (descending), because the cursor named a subscriber and the walk went
 * on from where that subscriber had moved. The cursors of an `updatedAt` order carry the place they mark now: every
 * page is checked against the model over the data as it is at that moment, and the walk meets every row it should.
 * A plain `_id` (Novu's form, which clients may build from an item) still means "from where that subscriber is now".
 */
import { searchSubscribers, subscriberCursorOf } from "@novu-query/contract/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchSubscribersResponse, Subscriber } from "../../generated/schema.js";
import { drivers } from "../support/databases.js";
import { json, startTestServer, type TestServer } from "../support/server.js";

const limit = 5;

describe.each(drivers)("cursor walks while rows change (%s)", (driver) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ driver, demo: { subscribers: 40, notifications: 5 } });
  });
  afterAll(() => server?.close());

  const search = async (query: Record<string, string>) => {
    const response = await server.request(`/v2/subscribers?${new URLSearchParams(query)}`);
    expect(response.status).toBe(200);
    return json<SearchSubscribersResponse>(response);
  };

  /** Every live subscriber of the environment as it is now: the model's data. */
  const everyone = async () => (await search({ limit: "100", orderBy: "_id" })).data;

  const patch = async (subscriber: Subscriber, step: number) => {
    // Another millisecond at least, so that its updatedAt moves.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const response = await server.request(`/v2/subscribers/${encodeURIComponent(subscriber.subscriberId)}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ data: { walkStep: step } }),
    });
    expect(response.status).toBe(200);
    return json<Subscriber>(response);
  };

  /**
   * A walk that patches the last row of each page before asking for the next one, each page held to the model over
   * the data of that moment. Returns the ids met, in order, and those patched.
   */
  async function walkPatchingCursorRows(orderDirection: "ASC" | "DESC") {
    const query = { limit: String(limit), orderBy: "updatedAt", orderDirection };
    const met: string[] = [];
    const patched = new Set<string>();
    let after: string | undefined;
    for (let step = 0; step < 100; step++) {
      const sent = { ...query, ...(after && { after }) };
      const data = await everyone();
      const page = await search(sent);
      const expected = searchSubscribers(data, {
        limit,
        orderBy: "updatedAt",
        orderDirection,
        ...(after && { after }),
      });
      expect(expected.status).toBe(200);
      expect(page, `page ${step + 1} of the walk, after=${after}`).toEqual(expected.status === 200 && expected.body);
      met.push(...page.data.map((s) => s._id));
      const last = page.data.at(-1);
      if (!page.next || !last) break;
      expect(page.next).toBe(subscriberCursorOf(last, "updatedAt"));
      // Each row once: a row met again at its new place is left there, so that the walk ends.
      if (!patched.has(last._id)) {
        await patch(last, step);
        patched.add(last._id);
      }
      after = page.next;
    }
    return { met, patched };
  }

  it("ascending: a patched cursor row neither ends the walk nor hides the rows after it", async () => {
    const before = await everyone();
    const { met, patched } = await walkPatchingCursorRows("ASC");
    // Every row the walk did not patch is met once; a patched row moved ahead of the walk and is met again there.
    expect(patched.size).toBeGreaterThan(3);
    for (const subscriber of before) {
      const times = met.filter((id) => id === subscriber._id).length;
      expect(times, subscriber._id).toBe(patched.has(subscriber._id) ? 2 : 1);
    }
  });

  it("descending: a patched cursor row does not start the walk over", async () => {
    const before = await everyone();
    const { met } = await walkPatchingCursorRows("DESC");
    // A patched row moved behind the walk (to the front): nothing is met twice, and the walk reaches the end.
    expect(new Set(met).size).toBe(met.length);
    expect(met).toHaveLength(before.length);
  });

  it("reads a plain _id as Novu does: from where that subscriber is now", async () => {
    const page = await search({ limit: String(limit), orderBy: "updatedAt", orderDirection: "ASC" });
    const last = page.data.at(-1) as Subscriber;
    await patch(last, -1);
    // The subscriber is now the newest: nothing follows it.
    const fromId = await search({ limit: String(limit), orderBy: "updatedAt", orderDirection: "ASC", after: last._id });
    expect(fromId.data).toEqual([]);
    const fromPlace = await search({
      limit: String(limit),
      orderBy: "updatedAt",
      orderDirection: "ASC",
      after: page.next as string,
    });
    expect(fromPlace.data).toHaveLength(limit);
  });

  it("refuses a cursor whose time is out of range with 422, and reads the carried time only in an updatedAt order", async () => {
    const response = await server.request(`/v2/subscribers?orderBy=updatedAt&after=${"a".repeat(24)}_9000000000000000`);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { errors: Record<string, { messages: string[] }> };
    expect(body.errors, JSON.stringify(body)).toEqual({
      "query.after": expect.objectContaining({ messages: ["must carry a time within the years 0000 to 9999"] }),
    });
    const [first] = (await search({ limit: "1", orderBy: "_id", orderDirection: "ASC" })).data as [Subscriber];
    const carried = subscriberCursorOf({ ...first, updatedAt: "2000-01-01T00:00:00.000Z" }, "updatedAt");
    const byId = await search({ limit: "3", orderBy: "_id", orderDirection: "ASC", after: carried });
    const plain = await search({ limit: "3", orderBy: "_id", orderDirection: "ASC", after: first._id });
    expect(byId).toEqual(plain);
  });
});
