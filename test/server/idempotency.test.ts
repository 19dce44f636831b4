import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ErrorDto, Subscriber, ValidationErrorDto } from "../../generated/schema.js";
import type { SubscriberRow } from "../../server/store/rows.js";
import { drivers } from "../support/databases.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";

// Both ways the server runs a PATCH with a key: at once, in one statement (D68, what it does), and in a session of
// the skeleton's (what it does for a 404, and what every other store of the skeleton does).
const ways = drivers.flatMap((driver) => [
  [driver, "at once"],
  [driver, "in a session"],
]) as ["pglite" | "postgres", "at once" | "in a session"][];

describe.each(ways)("idempotency-key on PATCH (%s, %s)", (driver, way) => {
  let server: TestServer;
  let pool: SubscriberRow[];
  let counter = 0;
  const take = () => pool.shift() as SubscriberRow;
  const newKey = () => `test-key-${driver}-${++counter}-${Date.now()}`;
  const patch = (subscriberId: string, body: unknown, key?: string) =>
    server.request(
      `/v2/subscribers/${encodeURIComponent(subscriberId)}`,
      jsonPatch(body, key ? { "idempotency-key": key } : {}),
    );

  beforeAll(async () => {
    server = await startTestServer({
      driver,
      config: { idempotencyTtlSeconds: 3600 },
      withoutAtOnce: way === "in a session",
    });
    pool = server.production.subscribers.filter((s) => !s.deleted);
  });
  afterAll(() => server?.close());

  it("applies the change once and replays the stored answer byte for byte", async () => {
    const subscriber = take();
    const key = newKey();
    const first = await patch(subscriber.subscriber_id, { firstName: "Once" }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotency-key")).toBe(key);
    expect(first.headers.get("idempotency-replay")).toBeNull();
    const firstText = await first.text();
    const version = (JSON.parse(firstText) as Subscriber).__v;

    const again = await patch(subscriber.subscriber_id, { firstName: "Once" }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotency-replay")).toBe("true");
    expect(again.headers.get("idempotency-key")).toBe(key);
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await again.text()).toBe(firstText);
    const now = await json<Subscriber>(await patch(subscriber.subscriber_id, {}));
    expect(now.__v).toBe(version);
  });

  it("treats the same body with keys in another order as the same request", async () => {
    const subscriber = take();
    const key = newKey();
    const first = await server.request(`/v2/subscribers/${subscriber.subscriber_id}`, {
      method: "PATCH",
      body: '{"firstName":"A","lastName":"B"}',
      headers: { "content-type": "application/json", "idempotency-key": key },
    });
    const second = await server.request(`/v2/subscribers/${subscriber.subscriber_id}`, {
      method: "PATCH",
      body: '{ "lastName": "B", "firstName": "A" }',
      headers: { "content-type": "application/json", "idempotency-key": key },
    });
    expect(first.status).toBe(200);
    expect(second.headers.get("idempotency-replay")).toBe("true");
  });

  it("answers a key reused with a different body or path with 422 and changes nothing", async () => {
    const [one, two] = [take(), take()];
    const key = newKey();
    await patch(one.subscriber_id, { firstName: "First" }, key);
    const otherBody = await patch(one.subscriber_id, { firstName: "Second" }, key);
    expect(otherBody.status).toBe(422);
    expect(otherBody.headers.get("idempotency-key")).toBe(key);
    expect(otherBody.headers.get("link")).toBe("https://docs.novu.co/additional-resources/idempotency");
    const body = await json<ValidationErrorDto>(otherBody);
    expect(body.message).toBe(`Request with key "${key}" is being reused for a different body`);
    expect(body.errors["headers.idempotency-key"]).toEqual({
      messages: ["was already used with a different method, path or body"],
      value: key,
    });
    const otherPath = await patch(two.subscriber_id, { firstName: "First" }, key);
    expect(otherPath.status).toBe(422);
    const untouched = await json<Subscriber>(await patch(two.subscriber_id, {}));
    expect(untouched.firstName).toBe(two.first_name);
  });

  it("stores and replays a 404", async () => {
    const key = newKey();
    const first = await patch("ghost-subscriber", { firstName: "Boo" }, key);
    expect(first.status).toBe(404);
    expect(first.headers.get("idempotency-key")).toBe(key);
    const firstText = await first.text();
    const again = await patch("ghost-subscriber", { firstName: "Boo" }, key);
    expect(again.status).toBe(404);
    expect(again.headers.get("idempotency-replay")).toBe("true");
    expect(await again.text()).toBe(firstText);
  });

  it("does not store requests rejected by validation", async () => {
    const subscriber = take();
    const key = newKey();
    const invalid = await patch(subscriber.subscriber_id, { email: "nope" }, key);
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("idempotency-key")).toBe(key);
    expect(invalid.headers.get("link")).toBeNull();
    const badZone = await patch(subscriber.subscriber_id, { timezone: "Nowhere/Land" }, key);
    expect(badZone.status).toBe(422);
    const valid = await patch(subscriber.subscriber_id, { email: "fixed@example.com" }, key);
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotency-replay")).toBeNull();
  });

  it("answers a key longer than 255 characters with 400", async () => {
    const subscriber = take();
    const response = await patch(subscriber.subscriber_id, { firstName: "Long" }, "k".repeat(256));
    expect(response.status).toBe(400);
    expect(response.headers.get("idempotency-key")).toBeNull();
    expect((await json<ErrorDto>(response)).message).toBe(
      `idempotencyKey "${"k".repeat(256)}" has exceeded the maximum allowed length of 255 characters`,
    );
    const get = await server.request("/v1/notifications?limit=1", { headers: { "idempotency-key": "k".repeat(256) } });
    expect(get.status).toBe(400);
  });

  it("accepts a key on GET without storing anything", async () => {
    const key = newKey();
    const a = await server.request("/v1/notifications?limit=1", { headers: { "idempotency-key": key } });
    const b = await server.request("/v1/notifications?limit=2", { headers: { "idempotency-key": key } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get("idempotency-replay")).toBeNull();
  });

  it("scopes keys to the environment", async () => {
    const key = newKey();
    const prod = take();
    const dev = server.development.subscribers.find((s) => !s.deleted) as SubscriberRow;
    expect((await patch(prod.subscriber_id, { lastName: "P" }, key)).status).toBe(200);
    const other = await server.request(`/v2/subscribers/${dev.subscriber_id}`, {
      ...jsonPatch({ lastName: "D" }, { "idempotency-key": key }),
      key: server.development.apiKey,
    });
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotency-replay")).toBeNull();
  });

  it("applies exactly one change when many identical requests race", async () => {
    const subscriber = take();
    const before = await json<Subscriber>(await patch(subscriber.subscriber_id, {}));
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => patch(subscriber.subscriber_id, { lastName: "Raced" }, key)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const bodies = await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    for (const response of responses.filter((r) => r.status === 409))
      expect(response.headers.get("retry-after")).toBe("1");
    const after = await json<Subscriber>(await patch(subscriber.subscriber_id, {}));
    expect(after.__v).toBe(before.__v + 1);
  });

  it("deletes expired records, after which the key is new again", async () => {
    const subscriber = take();
    const key = newKey();
    await patch(subscriber.subscriber_id, { firstName: "Expiring" }, key);
    await server.store.db
      .updateTable("idempotency_records")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("idempotency_key", "=", key)
      .execute();
    expect(await server.store.idempotency.deleteExpired()).toBeGreaterThanOrEqual(1);
    const fresh = await patch(subscriber.subscriber_id, { firstName: "Different now" }, key);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotency-replay")).toBeNull();
  });

  it.runIf(driver === "postgres")(
    "answers 409 with Retry-After while the key is held by a request in flight",
    async () => {
      const subscriber = take();
      const key = newKey();
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      try {
        // Hold the key's lock exactly as a PATCH in flight does.
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
          `${server.production.environmentId}:${key}`,
        ]);
        const response = await patch(subscriber.subscriber_id, { firstName: "Blocked" }, key);
        expect(response.status).toBe(409);
        expect(response.headers.get("retry-after")).toBe("1");
        expect(response.headers.get("link")).toBe("https://docs.novu.co/additional-resources/idempotency");
        expect(response.headers.get("idempotency-key")).toBeTruthy();
        expect(await json<ErrorDto>(response)).toMatchObject({ statusCode: 409, error: "Conflict" });
        await client.query("ROLLBACK");
        const retried = await patch(subscriber.subscriber_id, { firstName: "Blocked" }, key);
        expect(retried.status).toBe(200);
      } finally {
        await client.end();
      }
    },
  );
});

describe.each(drivers)("the bound on an environment's stored answers (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver, config: { idempotencyMaxBytesPerEnvironment: 400_000 } });
  });
  afterAll(() => server?.close());

  it("keeps the newest answers within the bound and drops the oldest, whose key is then a new key", async () => {
    const subscriber = server.production.subscribers.find((s) => !s.deleted) as SubscriberRow;
    const path = `/v2/subscribers/${encodeURIComponent(subscriber.subscriber_id)}`;
    // Each answer holds about 40 kB of data: 40 of them are four times the bound.
    const keys = Array.from({ length: 40 }, (_, i) => `bound-${driver}-${i}`);
    for (const [i, key] of keys.entries()) {
      const body = { data: { note: `${i}`.repeat(40_000 / `${i}`.length) } };
      expect((await server.request(path, jsonPatch(body, { "idempotency-key": key }))).status).toBe(200);
    }
    const rows = await server.store.db
      .selectFrom("idempotency_records")
      // An answer stored at once (D68) keeps its subscriber's columns and the size of its text instead of the text.
      .select(["idempotency_key", sql<number>`coalesce(octet_length(body), subscriber_bytes)`.as("bytes")])
      .where("environment_id", "=", server.production.environmentId)
      .execute();
    const bytes = rows.reduce((sum, row) => sum + Number(row.bytes), 0);
    // Checked every twentieth of the bound saved, so at most that share over it.
    expect(bytes).toBeLessThanOrEqual(400_000 * 1.05 + 41_000);
    expect(rows.length).toBeLessThan(keys.length / 2);
    const newest = keys.at(-1) as string;
    expect(rows.map((row) => row.idempotency_key)).toContain(newest);
    const replay = await server.request(
      path,
      jsonPatch({ data: { note: "39".repeat(40_000 / 2) } }, { "idempotency-key": newest }),
    );
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    // The oldest key's answer is gone: the same request is applied again (no change: the values are the same).
    const oldest = await server.request(
      path,
      jsonPatch({ data: { note: "0".repeat(40_000) } }, { "idempotency-key": keys[0] as string }),
    );
    expect(oldest.status).toBe(200);
    expect(oldest.headers.get("idempotency-replay")).toBeNull();
  });
});

describe.each(drivers)("the cost of the bound on stored answers (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    // The default bound (50 MB): small answers fill a twentieth of it only after thousands of PATCHes.
    server = await startTestServer({ driver });
  });
  afterAll(() => server?.close());

  it("is applied once per twentieth of the bound saved, not every so many answers however small they are", async () => {
    // Applying the bound reads every answer the environment stores (up to 50 MB of them): doing it after every hundred
    // small answers cost an environment at its bound hundreds of rows read per PATCH.
    const bounding = vi.spyOn(server.store.idempotency, "keepNewestWithin");
    const subscriber = server.production.subscribers.find((s) => !s.deleted) as SubscriberRow;
    const path = `/v2/subscribers/${encodeURIComponent(subscriber.subscriber_id)}`;
    let savedBytes = 0;
    for (let i = 0; i < 250; i++) {
      const answer = await server.request(
        path,
        jsonPatch({ data: { n: i } }, { "idempotency-key": `cost-${driver}-${i}` }),
      );
      expect(answer.status).toBe(200);
      savedBytes += Buffer.byteLength(await answer.text());
    }
    expect(savedBytes).toBeLessThan((50 * 1024 * 1024) / 20);
    expect(bounding).not.toHaveBeenCalled();
  });
});
