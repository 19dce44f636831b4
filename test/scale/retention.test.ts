/**
 * Retention by partition drops (migration 003): notifications live in monthly partitions, and a month past
 * retention goes with one DROP TABLE. The kept term counts must lose the month's rows too.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListNotificationsResponse } from "../../generated/schema.js";
import { startServerProcess } from "../../scripts/processes.js";
import { drivers, onCitus } from "../support/databases.js";
import { json, startTestServer, type TestServer } from "../support/server.js";

const month = (iso: string) => `notifications_${iso.slice(0, 7).replace("-", "_")}`;

async function allIds(server: { request(path: string): Promise<Response> }): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const body = await json<ListNotificationsResponse>(await server.request(`/v1/notifications?limit=50&page=${page}`));
    ids.push(...body.data.map((n) => n._id));
    if (!body.hasMore) return ids;
  }
}

describe.each(drivers)("notification partitions and retention (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver });
  });
  afterAll(() => server?.close());

  it("keeps one partition per month of data, and makes the months ahead on request, once", async () => {
    const months = [...new Set(server.production.notifications.map((n) => month(n.created_at)))].sort();
    const partitions = await server.store.partitions.list();
    for (const name of months) expect(partitions).toContain(name);
    const now = new Date("2027-01-15T00:00:00Z");
    expect(await server.store.partitions.ensureAround(now)).toBeGreaterThan(0);
    expect(await server.store.partitions.list()).toEqual(expect.arrayContaining([month("2027-01"), month("2027-04")]));
    expect(await server.store.partitions.ensureAround(now)).toBe(0);
  });

  it("drops whole months before the cutoff, and only them; the counts follow", async () => {
    const cutoff = new Date("2026-08-01T00:00:00Z");
    const dropped = await server.store.partitions.dropBefore(cutoff);
    expect(dropped).toEqual([month("2026-05"), month("2026-06"), month("2026-07")]);
    const kept = server.production.notifications
      .filter((n) => Date.parse(n.created_at) >= cutoff.getTime())
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1))
      .map((n) => n.id);
    expect(kept.length).toBeGreaterThan(0);
    expect(await allIds(server)).toEqual(kept);
    const { rows } = await sql<{ kept: string; actual: string }>`
      SELECT c.notifications AS kept,
        (SELECT count(*) FROM notifications n WHERE n.environment_id = c.environment_id AND c.term = ANY (n.filter_terms)) AS actual
      FROM notification_term_counts c`.execute(server.store.db);
    for (const row of rows) expect(row.kept).toBe(row.actual);
    expect(await server.store.partitions.dropBefore(cutoff)).toEqual([]);
  });
});

// PGlite or no database: run in `npm test`, nothing to run on Citus (CITUS=on).
describe.skipIf(onCitus)("PURGE_AFTER_DAYS", () => {
  it("makes the server drop the months past it at start", async () => {
    const server = await startServerProcess({ PURGE_AFTER_DAYS: "60", DEMO_NOTIFICATIONS: "300" });
    try {
      const cutoff = Date.now() - 60 * 86_400_000;
      const request = (path: string) =>
        fetch(`${server.baseUrl}${path}`, { headers: { authorization: `ApiKey ${server.keys.Production}` } });
      const ids = await allIds({ request });
      expect(ids.length).toBeGreaterThan(0);
      const oldest = await json<ListNotificationsResponse>(
        await request(`/v1/notifications?limit=1&page=${ids.length - 1}`),
      );
      // Whole months go: what is left starts at the first month that ends after the cutoff.
      const firstKeptMonth = new Date(cutoff);
      expect(Date.parse(oldest.data[0]?.createdAt as string)).toBeGreaterThanOrEqual(
        Date.UTC(firstKeptMonth.getUTCFullYear(), firstKeptMonth.getUTCMonth(), 1),
      );
    } finally {
      await server.stop();
    }
  });
});
