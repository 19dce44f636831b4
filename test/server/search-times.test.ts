/**
 * A search page reads its subscribers' times as PostgreSQL's text (`timeText`, server/store/subscriber-columns.ts, D69)
 * and moves it into the answer's form (`toIso`) where other reads parse them into Dates: for fractions of every length
 * (none, trailing zeros dropped, microseconds below the millisecond that the answers drop) and for years far apart,
 * the search answers the same text as `toISOString` of the driver's Date, on every driver.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drivers } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe.each(drivers)("subscriber times in a search page (%s)", (driver) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ driver });
  }, 120_000);
  afterAll(() => server?.close());

  it("are the driver's Dates as toISOString writes them, milliseconds truncated, across years", async () => {
    const { store, production } = server;
    const environmentId = production.environmentId;
    const ids = (
      await store.db
        .selectFrom("subscribers")
        .select("id")
        .where("environment_id", "=", environmentId)
        .where("deleted", "=", false)
        .orderBy("id")
        .execute()
    ).map((row) => row.id);
    // Each subscriber times of its own: a millisecond, microseconds after it, a year from 1970 to 2999, fractions of
    // every length, and no `lastOnlineAt` for every seventh one. Written as text (Citus takes no stable function in an
    // UPDATE's CASE).
    const years = [1970, 1999, 2000, 2024, 2026, 2099, 2999];
    const fractions = ["", ".5", ".05", ".000001", ".999999", ".1234", ".12345"];
    const two = (n: number) => String(n).padStart(2, "0");
    const stampOf = (i: number) => {
      const ms = (i * 7) % 1000;
      const micro = (i * 389) % 1000;
      const fraction = fractions[i % 50] ?? `.${String(ms).padStart(3, "0")}${String(micro).padStart(3, "0")}`;
      const day = `${years[i % years.length]}-${two((i % 9) + 1)}-${two((i % 28) + 1)}`;
      return `${day} ${two(i % 24)}:${two(i % 60)}:${two((i * 13) % 60)}${fraction}+00`;
    };
    for (const [i, id] of ids.entries()) {
      const lastOnline = i % 7 === 0 ? null : stampOf(i + 500);
      await sql`UPDATE subscribers SET created_at = ${stampOf(i)}::timestamptz, updated_at = ${stampOf(i + 1000)}::timestamptz, last_online_at = ${lastOnline}::timestamptz WHERE id = ${id}`.execute(
        store.db,
      );
    }
    const read = await store.db
      .selectFrom("subscribers")
      .select(["id", "created_at", "updated_at", "last_online_at"])
      .where("environment_id", "=", environmentId)
      .where("deleted", "=", false)
      .execute();
    const expected = new Map(
      read.map((row) => [
        row.id,
        {
          createdAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
          lastOnlineAt: row.last_online_at ? row.last_online_at.toISOString() : null,
        },
      ]),
    );
    const answered = new Map<string, { createdAt: string; updatedAt: string; lastOnlineAt: string | null }>();
    let after: string | undefined;
    do {
      const page = await store.subscribers.search(environmentId, {
        limit: 100,
        orderBy: "_id",
        orderDirection: "ASC",
        includeCursor: false,
        after,
      });
      for (const subscriber of page.data) {
        const { createdAt, updatedAt, lastOnlineAt } = subscriber;
        answered.set(subscriber._id, { createdAt, updatedAt, lastOnlineAt });
      }
      after = page.next ?? undefined;
    } while (after !== undefined);
    expect(answered.size).toBe(ids.length);
    expect(Object.fromEntries(answered)).toEqual(Object.fromEntries(expected));
    // And through HTTP, filtered (planned for its values) as well as not.
    const filtered = await (
      await server.request(
        `/v2/subscribers?limit=100&subscriberId=${encodeURIComponent(production.subscribers[3]?.subscriber_id ?? "")}`,
      )
    ).json();
    const [one] = filtered.data as { _id: string; createdAt: string; updatedAt: string; lastOnlineAt: string | null }[];
    expect(one && { createdAt: one.createdAt, updatedAt: one.updatedAt, lastOnlineAt: one.lastOnlineAt }).toEqual(
      one && expected.get(one._id),
    );
  });
});
