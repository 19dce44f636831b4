/**
 * A notification's own fields kept as its answer's JSON text (D59, server/store/notification-answer.ts): every answer
 * the server sends, from a page of the list or a read by id, is byte for byte the notification built the typed way
 * (`toNotification` over the row as it was written and its subscriber's and workflow's rows as they are now), and
 * passes the server's check of answers against the spec. The same after each way rows get there: the bulk insert
 * (the demo load), a row written before migration 012 (its `details` and no kept answer, answered the typed way from
 * its columns), and that row rewritten by `fillAnswers`; a PATCH of the subscriber shows in the next page.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillAnswers, fillAnswersInBackground } from "../../server/store/answer-fill.js";
import { type LiveColumns, toNotification } from "../../server/store/notification-answer.js";
import type { NotificationRow } from "../../server/store/rows.js";
import { drivers } from "../support/databases.js";
import { jsonPatch, startTestServer, type TestServer } from "../support/server.js";

/**
 * Details a row written before migration 012 may hold: keys jsonb reorders, numbers, escapes, nesting; a demo row's
 * jobs; none at all.
 */
const olderDetails = (demo: NotificationRow): Record<string, unknown>[] => [
  {
    tags: ["b", "a"],
    payload: { zeta: 1, alpha: { "10": true, "9": [1.5, 1e21, -0, 0.1], b: null }, 'é\n\u2028"': "\u00e9\t\\" },
    jobs: [],
    critical: true,
  },
  { jobs: demo.details.jobs, payload: {} },
  {},
];

describe.each(drivers)("notifications' answers kept as text (%s)", (driver) => {
  let server: TestServer;
  /** A server that sends what the store gives as it is (answers not validated, as in production). */
  let production: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver });
    production = await startTestServer({ driver, config: { validateResponses: false } });
  });
  afterAll(async () => {
    await server?.close();
    await production?.close();
  });

  /** Each notification's subscriber and workflow columns as the database has them now, by notification id. */
  async function liveColumns(target: TestServer): Promise<Map<string, LiveColumns>> {
    const { rows } = await sql<LiveColumns & { id: string }>`
      SELECT n.id, s.id AS s_id, s.subscriber_id AS s_subscriber_id, s.first_name AS s_first_name,
        s.last_name AS s_last_name, s.email AS s_email, s.phone AS s_phone,
        w.id AS w_id, w.name AS w_name, w.origin AS w_origin, w.triggers AS w_triggers
      FROM notifications n
      LEFT JOIN subscribers s ON s.environment_id = n.environment_id AND s.id = n.subscriber_id
      LEFT JOIN workflows w ON w.environment_id = n.environment_id AND w.id = n.template_id
      WHERE n.environment_id = ${target.production.environmentId}`.execute(target.store.db);
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The demo's notifications built the typed way from the rows the load was given, newest first. */
  async function typedWay(target: TestServer, written: NotificationRow[]): Promise<string[]> {
    const live = await liveColumns(target);
    return [...written]
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
      .map((row) => JSON.stringify(toNotification({ ...row, ...(live.get(row.id) as LiveColumns) })));
  }

  /** Every page's text, limit 50, in the list's order; and every notification's text by id. */
  async function served(target: TestServer): Promise<{ pages: string[]; byId: Map<string, string> }> {
    const pages: string[] = [];
    const byId = new Map<string, string>();
    for (let page = 0; ; page++) {
      const response = await target.request(`/v1/notifications?limit=50&page=${page}`);
      expect(response.status, `page ${page}`).toBe(200);
      const text = await response.text();
      pages.push(text);
      const body = JSON.parse(text) as { data: { _id: string }[]; hasMore: boolean };
      for (const notification of body.data) {
        const one = await target.request(`/v1/notifications/${notification._id}`);
        expect(one.status, notification._id).toBe(200);
        byId.set(notification._id, await one.text());
      }
      if (!body.hasMore) return { pages, byId };
    }
  }

  /** The pages the typed way gives for these notifications' texts, limit 50. */
  function pagesOf(texts: string[]): string[] {
    const pages: string[] = [];
    for (let page = 0; page === 0 || page * 50 < texts.length; page++) {
      const data = texts.slice(page * 50, page * 50 + 50);
      pages.push(
        `{"data":[${data.join(",")}],"hasMore":${(page + 1) * 50 < texts.length},"page":${page},"pageSize":50}`,
      );
    }
    return pages;
  }

  it.each([
    ["sent as it is", () => production],
    ["checked against the spec first", () => server],
  ])("answers every page and every read by id as the typed way builds them (%s)", async (_way, target) => {
    const expected = await typedWay(target(), target().production.notifications);
    const { pages, byId } = await served(target());
    expect(pages).toEqual(pagesOf(expected));
    for (const text of expected) {
      const { _id } = JSON.parse(text) as { _id: string };
      expect(byId.get(_id), _id).toBe(text);
    }
    // Each row has its kept answer and no details: the load wrote them so.
    const { rows } = await sql<{ kept: number; details: number }>`
      SELECT count(answer)::int AS kept, count(details)::int AS details FROM notifications
      WHERE environment_id = ${target().production.environmentId}`.execute(target().store.db);
    expect(rows[0]).toEqual({ kept: target().production.notifications.length, details: 0 });
  });

  it("shows a PATCH of the subscriber in the next page, the kept text unchanged", async () => {
    const first = JSON.parse(await (await production.request("/v1/notifications?limit=1")).text()) as {
      data: { subscriber: { subscriberId: string; firstName?: string } }[];
    };
    const { subscriberId } = first.data[0]?.subscriber ?? { subscriberId: "" };
    const patched = await production.request(`/v2/subscribers/${subscriberId}`, jsonPatch({ firstName: "Renamed" }));
    expect(patched.status).toBe(200);
    const after = JSON.parse(await (await production.request("/v1/notifications?limit=1")).text()) as typeof first;
    expect(after.data[0]?.subscriber.firstName).toBe("Renamed");
    expect(await served(production)).toEqual({
      pages: pagesOf(await typedWay(production, production.production.notifications)),
      byId: expect.any(Map),
    });
  });

  it("shows a workflow changed in the database in the next page and read by id: summaries are never served stale", async () => {
    const first = JSON.parse(await (await production.request("/v1/notifications?limit=1")).text()) as {
      data: { _id: string; template: { _id: string; name: string; origin?: string } }[];
    };
    const { _id: notificationId, template } = first.data[0] ?? { _id: "", template: { _id: "", name: "" } };
    const environmentId = production.production.environmentId;
    // Each column the summary is built from, one at a time, and back: a cache keyed by the workflow alone fails here.
    const changes = [
      sql`UPDATE workflows SET name = 'Renamed workflow'`,
      sql`UPDATE workflows SET triggers = '[{"type": "event", "identifier": "renamed", "variables": []}]'::jsonb`,
      sql`UPDATE workflows SET origin = NULL`,
      sql`UPDATE workflows SET origin = ${template.origin ?? "novu-cloud"}, name = ${template.name}`,
    ];
    for (const change of changes) {
      await sql`${change} WHERE environment_id = ${environmentId} AND id = ${template._id}`.execute(
        production.store.db,
      );
      const typed = await typedWay(production, production.production.notifications);
      const page = await (await production.request("/v1/notifications?limit=50")).text();
      expect(page).toBe(pagesOf(typed)[0]);
      const byId = await (await production.request(`/v1/notifications/${notificationId}`)).text();
      expect(byId).toBe(typed.find((text) => text.startsWith(`{"_id":"${notificationId}"`)));
    }
  });

  /**
   * Writes notifications as a server before migration 012 did (their details, no kept answer), between the newest of
   * the demo's, so that pages mix both kinds; `tag` keeps their ids apart from another call's.
   */
  async function writeTheOlderWay(target: TestServer, tag: string): Promise<NotificationRow[]> {
    const environment = target.production;
    const newest = [...environment.notifications].sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
    const template = environment.notifications[0] as NotificationRow;
    // Between the newest demo rows, so that pages mix rows kept as text and older ones.
    const older: NotificationRow[] = olderDetails(template).map((details, i) => ({
      ...template,
      id: `${"0".repeat(21)}${tag}${i}`,
      transaction_id: `older-${i}`,
      severity: i === 2 ? null : "high",
      // The second with microseconds, which PostgreSQL keeps and a Date drops.
      created_at: new Date(Date.parse((newest as NotificationRow).created_at) - 1 - i * 1000)
        .toISOString()
        .replace("Z", i === 1 ? "456Z" : "Z"),
      updated_at: new Date(Date.parse((newest as NotificationRow).created_at) - 1 - i * 1000).toISOString(),
      details,
    }));
    for (const row of older) {
      await sql`INSERT INTO notifications (id, environment_id, organization_id, subscriber_id, transaction_id,
          template_id, digested_notification_id, channels, severity, topic_keys, created_at, updated_at, details)
        VALUES (${row.id}, ${row.environment_id}, ${row.organization_id}, ${row.subscriber_id}, ${row.transaction_id},
          ${row.template_id}, NULL, ${row.channels}::text[], ${row.severity}, ${row.topic_keys}::text[],
          ${row.created_at}, ${row.updated_at}, ${JSON.stringify(row.details)}::jsonb)`.execute(target.store.db);
    }
    return older;
  }

  it("answers rows written before migration 012 the typed way, and the same bytes once fillAnswers rewrote them", async () => {
    const older = await writeTheOlderWay(server, "a0");
    // What a row written so gives the typed way: its details as the database gives them back (jsonb orders keys).
    const { rows: stored } = await sql<{ id: string; details: Record<string, unknown> }>`
      SELECT id, details FROM notifications WHERE answer IS NULL`.execute(server.store.db);
    expect(stored.map((row) => row.id).sort()).toEqual(older.map((row) => row.id));
    const asStored = new Map(stored.map((row) => [row.id, row.details]));
    const written = [
      ...server.production.notifications,
      ...older.map((row) => ({ ...row, details: asStored.get(row.id) as Record<string, unknown> })),
    ];
    const expected = pagesOf(await typedWay(server, written));
    const before = await served(server);
    expect(before.pages).toEqual(expected);

    let filled = 0;
    for (let found = await fillAnswers(server.store.db, 2); found > 0; found = await fillAnswers(server.store.db, 2)) {
      filled += found;
    }
    expect(filled).toBe(older.length);
    const { rows } = await sql<{ left: number }>`
      SELECT count(*)::int AS left FROM notifications WHERE answer IS NULL OR details IS NOT NULL`.execute(
      server.store.db,
    );
    expect(rows[0]?.left).toBe(0);
    expect(await served(server)).toEqual(before);
  });

  it("rewrites such rows in the server's background, a batch at a time, and stops when told", async () => {
    const older = await writeTheOlderWay(production, "b0");
    const before = await served(production);
    let reported = 0;
    const done = new Promise<void>((resolve, reject) => {
      const loop = fillAnswersInBackground(
        production.store.db,
        { batchSize: 1, pauseMs: 5, idleMs: 60_000 },
        {
          filled: (count) => {
            reported = count;
            loop.stop().then(resolve, reject);
          },
          failed: reject,
        },
      );
    });
    await done;
    expect(reported).toBe(older.length);
    const { rows } = await sql<{ left: number }>`
      SELECT count(*)::int AS left FROM notifications WHERE answer IS NULL`.execute(production.store.db);
    expect(rows[0]?.left).toBe(0);
    expect(await served(production)).toEqual(before);
  });
});
