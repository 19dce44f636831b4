/**
 * The store picks between query plans by the kept counts (migration 002): both ways must give the same answers, and
 * the counts must stay equal to the rows they count through inserts, updates and deletes.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChannelType, SeverityLevel } from "../../generated/schema.js";
import type { NotificationQuery } from "../../server/store/notifications.js";
import { Store } from "../../server/store/store.js";
import { drivers } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

const filters: Partial<NotificationQuery>[] = [
  { channels: ["email"] },
  { channels: ["sms", "chat"] },
  { channels: ["sms"], severity: ["low"] },
  { channels: ["email", "in_app"], severity: ["high", "none"] },
  { channels: ["email"], severity: ["none"] },
  { topicKey: "release-notes" },
  { topicKey: "retired-topic" },
  { topicKey: "billing-alerts", channels: ["email"] },
  { topicKey: "project-apollo", channels: ["in_app"], severity: ["high"], page: 1 },
];

describe.each(drivers)("notification list plans and kept counts (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver });
  });
  afterAll(() => server?.close());

  it.each(filters)("gives the same pages whether it collects rare matches or walks the index: %o", async (filter) => {
    const environmentId = server.production.environmentId;
    const query: NotificationQuery = { page: 0, limit: 7, after: new Date(0), before: new Date(), ...filter };
    const ids = async (rareTermLimit: number) => {
      const store = new Store(server.store.db, { totalCountCap: 50_000, rareTermLimit });
      const page = await store.notifications.list(environmentId, query);
      return { ids: page.data.map((n) => n._id), hasMore: page.hasMore };
    };
    const walked = await ids(0);
    const collected = await ids(Number.POSITIVE_INFINITY);
    expect(collected).toEqual(walked);
    const expected = server.production.notifications
      .filter(
        (n) =>
          (!filter.channels || filter.channels.some((c) => n.channels.includes(c as ChannelType))) &&
          (!filter.severity || filter.severity.includes((n.severity ?? "none") as SeverityLevel)) &&
          (!filter.topicKey || n.topic_keys.includes(filter.topicKey)),
      )
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1))
      .map((n) => n.id);
    const start = (filter.page ?? 0) * 7;
    expect(walked.ids).toEqual(expected.slice(start, start + 7));
    expect(walked.hasMore).toBe(expected.length > start + 7);
  });

  it("answers a term filter that no notification carries with an empty page, from the kept counts alone", async () => {
    const environmentId = server.production.environmentId;
    const query: NotificationQuery = { page: 0, limit: 7, after: new Date(0), before: new Date(), topicKey: "nowhere" };
    const store = new Store(server.store.db, { totalCountCap: 50_000 });
    expect(await store.notifications.list(environmentId, query)).toEqual({
      data: [],
      hasMore: false,
      page: 0,
      pageSize: 7,
    });
    // That the count decides, not a read of the notifications: a term that notifications carry, its count set to 0 by
    // hand (which no write path does: the counts are kept in the rows' own transactions), gives an empty page too.
    const carried = { ...query, topicKey: "release-notes" };
    expect((await store.notifications.list(environmentId, carried)).data.length).toBeGreaterThan(0);
    const term = "t:release-notes";
    const [kept] = (
      await sql<{ notifications: string }>`SELECT notifications::text FROM notification_term_counts
        WHERE environment_id = ${environmentId} AND term = ${term}`.execute(server.store.db)
    ).rows;
    expect(Number(kept?.notifications)).toBeGreaterThan(0);
    const setCount = (n: string) =>
      sql`UPDATE notification_term_counts SET notifications = ${n}::bigint
        WHERE environment_id = ${environmentId} AND term = ${term}`.execute(server.store.db);
    await setCount("0");
    try {
      expect((await store.notifications.list(environmentId, carried)).data).toEqual([]);
    } finally {
      await setCount(kept?.notifications ?? "0");
    }
  });

  const keptCounts = async () => {
    const subscribers = await sql<{ environment_id: string; kept: string; actual: string }>`
      SELECT c.environment_id, c.live AS kept,
        (SELECT count(*) FROM subscribers s WHERE s.environment_id = c.environment_id AND NOT s.deleted) AS actual
      FROM subscriber_counts c`.execute(server.store.db);
    const terms = await sql<{ term: string; kept: string; actual: string }>`
      SELECT c.term, c.notifications AS kept,
        (SELECT count(*) FROM notifications n WHERE n.environment_id = c.environment_id AND c.term = ANY (n.filter_terms)) AS actual
      FROM notification_term_counts c`.execute(server.store.db);
    return { subscribers: subscribers.rows, terms: terms.rows };
  };

  it("keeps the subscriber and term counts equal to the rows through inserts, updates and deletes", async () => {
    const before = await keptCounts();
    expect(before.subscribers).toHaveLength(2);
    expect(before.terms.length).toBeGreaterThan(20);
    for (const row of [...before.subscribers, ...before.terms]) expect(row.kept).toBe(row.actual);

    const db = server.store.db;
    await db.transaction().execute(async (tx) => {
      const victim = server.development.subscribers.find((s) => !s.deleted) as { id: string };
      await tx.deleteFrom("notifications").where("subscriber_id", "=", victim.id).execute();
      await tx.updateTable("subscribers").set({ deleted: true }).where("id", "=", victim.id).execute();
      await tx
        .updateTable("notifications")
        .set({ severity: "low", channels: ["sms"] })
        .where("environment_id", "=", server.development.environmentId)
        .where("severity", "=", "high")
        .execute();
      await tx
        .deleteFrom("notifications")
        .where("environment_id", "=", server.development.environmentId)
        .where("topic_keys", "@>", sql<string[]>`${["product-news"]}::text[]`)
        .execute();
    });
    const after = await keptCounts();
    for (const row of [...after.subscribers, ...after.terms]) expect(row.kept).toBe(row.actual);
    const development = after.subscribers.find((row) => row.environment_id === server.development.environmentId);
    expect(Number(development?.kept)).toBe(server.development.subscribers.filter((s) => !s.deleted).length - 1);
  });

  it("answers an unfiltered search's totalCount from the kept count", async () => {
    const response = await server.request("/v2/subscribers?limit=1");
    const body = (await response.json()) as { totalCount: number; totalCountCapped: boolean };
    expect(body).toMatchObject({
      totalCount: server.production.subscribers.filter((s) => !s.deleted).length,
      totalCountCapped: false,
    });
  });
});
