/**
 * A PATCH with an Idempotency-Key in one round trip (D68, migration 013 `patch_subscriber_at_once`): the key's lock, its
 * stored answer, the UPDATE and the answer kept for the key in one call. Held here to three things: it is one
 * statement; its answer is, byte for byte, the subscriber's answer as the store reads it back the typed way (and the
 * replay the same bytes); and it runs the PATCH exactly where `decideIdempotently` (contract/model, the rule the
 * skeleton's sessions follow) says "run", and nowhere else. The skeleton's session path keeps its own tests:
 * idempotency.test.ts runs every case both ways.
 */
import { decideIdempotently } from "@novu-query/contract/model";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Subscriber } from "../../generated/schema.js";
import type { SubscriberRow } from "../../server/store/rows.js";
import { drivers } from "../support/databases.js";
import { gate } from "../support/gate.js";
import { jsonPatch, startTestServer, type TestServer } from "../support/server.js";

const fingerprint = (n: number) => String(n).padStart(64, "0");

describe.each(drivers)("a PATCH with an idempotency key at once (%s)", (driver) => {
  let server: TestServer;
  let pool: SubscriberRow[];
  const seen: string[] = [];
  // The PATCH's own statements: not the API key's lookup (cached or not, by the test's settings).
  const statements = {
    clear: () => {
      seen.length = 0;
    },
    get own() {
      return seen.filter((text) => !text.includes('"api_keys"'));
    },
  };
  const take = () => pool.shift() as SubscriberRow;
  let keys = 0;
  const newKey = () => `at-once-${driver}-${++keys}`;

  beforeAll(async () => {
    server = await startTestServer({ driver, onStatement: (text) => seen.push(text) });
    pool = server.production.subscribers.filter((s) => !s.deleted);
  });
  afterAll(() => server?.close());

  const environmentId = () => server.production.environmentId;
  const versionOf = async (subscriberId: string) =>
    (await server.store.subscribers.findBySubscriberId(environmentId(), subscriberId))?.__v;

  it("is one statement, whose answer is the subscriber as read back, byte for byte, and so is its replay", async () => {
    const subscriber = take();
    // Times with microseconds, which the answer shows to the millisecond, and data whose text JSON escapes.
    await sql`UPDATE subscribers SET created_at = '2026-01-02 03:04:05.678901+00',
      last_online_at = '2026-02-03 04:05:06.999999+00', is_online = true
      WHERE environment_id = ${environmentId()} AND subscriber_id = ${subscriber.subscriber_id}`.execute(
      server.store.db,
    );
    const data = {
      text: 'quote " backslash \\ newline \n control \u0001 tab \t',
      unicode: "✓ 𝄞 é",
      numbers: [0, -1.5, 12345678901234, 1e-7],
      nested: { z: [1, { y: null }], a: true },
    };
    const path = `/v2/subscribers/${encodeURIComponent(subscriber.subscriber_id)}`;
    const key = newKey();
    statements.clear();
    const first = await server.request(path, jsonPatch({ firstName: "At Once", data }, { "idempotency-key": key }));
    expect(first.status).toBe(200);
    expect(statements.own, "the statements the PATCH ran").toHaveLength(1);
    expect(statements.own[0]).toContain("patch_subscriber_at_once");
    const text = await first.text();
    const read = await server.store.subscribers.findBySubscriberId(environmentId(), subscriber.subscriber_id);
    expect(text).toBe(JSON.stringify(read));
    expect((JSON.parse(text) as Subscriber).createdAt).toBe("2026-01-02T03:04:05.678Z");
    expect((JSON.parse(text) as Subscriber).data).toEqual(data);

    statements.clear();
    const again = await server.request(path, jsonPatch({ firstName: "At Once", data }, { "idempotency-key": key }));
    expect(again.headers.get("idempotency-replay")).toBe("true");
    expect(await again.text()).toBe(text);
    expect(statements.own).toHaveLength(1);
  });

  it("runs the PATCH exactly where decideIdempotently says run", async () => {
    const patches = server.store.subscribers;
    const cases: { name: string; prepare?: (key: string, subscriberId: string) => Promise<void>; print: number }[] = [
      { name: "a free key with nothing stored", print: 1 },
      {
        name: "an answer stored for the same request",
        prepare: (key) => save(key, fingerprint(2), 60),
        print: 2,
      },
      {
        name: "an answer stored for another request",
        prepare: (key) => save(key, fingerprint(3), 60),
        print: 4,
      },
      { name: "an expired answer", prepare: (key) => save(key, fingerprint(5), 0), print: 5 },
    ];
    async function save(key: string, print: string, ttlSeconds: number) {
      await server.store.transaction((tx) =>
        tx.idempotency.save(environmentId(), key, { fingerprint: print, statusCode: 200, body: "{}" }, ttlSeconds),
      );
    }
    for (const { name, prepare, print } of cases) {
      const subscriber = take();
      const key = newKey();
      await prepare?.(key, subscriber.subscriber_id);
      const before = await versionOf(subscriber.subscriber_id);
      const claimed = await server.store.transaction((tx) => tx.idempotency.claim(environmentId(), key));
      const decision = decideIdempotently(!claimed.locked, claimed.stored, fingerprint(print));
      const result = await patches.patchAtOnce(
        environmentId(),
        subscriber.subscriber_id,
        { lastName: `Case ${print}` },
        { key, fingerprint: fingerprint(print), ttlSeconds: 60 },
      );
      const after = await versionOf(subscriber.subscriber_id);
      expect({ name, ran: result.outcome === "patched" }).toEqual({ name, ran: decision === "run" });
      expect({ name, written: after !== before }).toEqual({ name, written: decision === "run" });
      if (result.outcome === "stored") expect(result.stored.fingerprint).toBe(claimed.stored?.fingerprint);
      if (result.outcome === "patched") {
        // Its answer is stored for the key: a claim now reads it, as the text the PATCH answered.
        const stored = await server.store.transaction((tx) => tx.idempotency.claim(environmentId(), key));
        expect(stored.stored).toEqual({
          fingerprint: fingerprint(print),
          statusCode: 200,
          body: JSON.stringify(result.subscriber),
        });
      }
    }
    // No such subscriber: nothing written, nothing stored; the session path stores its 404.
    const key = newKey();
    const absent = await patches.patchAtOnce(
      environmentId(),
      "no-such-subscriber",
      { lastName: "None" },
      {
        key,
        fingerprint: fingerprint(9),
        ttlSeconds: 60,
      },
    );
    expect(absent).toEqual({ outcome: "absent" });
    expect(await server.store.transaction((tx) => tx.idempotency.claim(environmentId(), key))).toEqual({
      locked: true,
      stored: undefined,
    });
  });

  it("stores the answer of a PATCH that changes nothing, and writes nothing", async () => {
    const subscriber = take();
    const before = await server.store.subscribers.findBySubscriberId(environmentId(), subscriber.subscriber_id);
    const key = newKey();
    const result = await server.store.subscribers.patchAtOnce(
      environmentId(),
      subscriber.subscriber_id,
      { firstName: before?.firstName ?? null, data: before?.data ?? null },
      { key, fingerprint: fingerprint(7), ttlSeconds: 60 },
    );
    expect(result).toEqual({ outcome: "patched", subscriber: before });
    expect(await versionOf(subscriber.subscriber_id)).toBe(before?.__v);
  });

  it.runIf(driver === "postgres")(
    "answers held while another transaction holds the key, and writes nothing",
    async () => {
      const subscriber = take();
      const key = newKey();
      const before = await versionOf(subscriber.subscriber_id);
      const { opened: released, open: release } = gate();
      const { opened: holding, open: claimed } = gate();
      const holder = server.store.transaction(async (tx) => {
        await tx.idempotency.claim(environmentId(), key);
        claimed();
        await released;
      });
      await holding;
      const result = await server.store.subscribers.patchAtOnce(
        environmentId(),
        subscriber.subscriber_id,
        { lastName: "Held" },
        { key, fingerprint: fingerprint(8), ttlSeconds: 60 },
      );
      release();
      await holder;
      expect(result).toEqual({ outcome: "held" });
      expect(decideIdempotently(true, undefined, fingerprint(8))).toBe("in-flight");
      expect(await versionOf(subscriber.subscriber_id)).toBe(before);
    },
  );

  it.runIf(driver === "postgres")(
    "reads an answer committed after its statement began, before it took the key, and writes nothing",
    async () => {
      const subscriber = take();
      const key = newKey();
      const before = await versionOf(subscriber.subscriber_id);
      const { opened: committing, open: commit } = gate();
      const { opened: holding, open: saved } = gate();
      const first = server.store.transaction(async (tx) => {
        await tx.idempotency.claim(environmentId(), key);
        await tx.idempotency.save(
          environmentId(),
          key,
          { fingerprint: fingerprint(6), statusCode: 200, body: "{}" },
          60,
        );
        saved();
        await committing;
      });
      await holding;
      // Begins while the first holds the key and takes it half a second later (the key's text depends on the sleep),
      // after the first has committed its answer: the function's read after its lock must see that answer.
      const second = sql<{ outcome: string; fingerprint: string | null }>`
        SELECT p.outcome, p.fingerprint
        FROM (SELECT '' AS nothing FROM pg_sleep(0.5)) AS waited
        CROSS JOIN LATERAL patch_subscriber_at_once(${environmentId()}, ${subscriber.subscriber_id},
          ${key} || waited.nothing, ${fingerprint(6)}, 60, ARRAY['lastName'], NULL, 'Late', NULL, NULL, NULL, NULL,
          NULL, NULL) AS p`.execute(server.store.db);
      await new Promise((resolve) => setTimeout(resolve, 100));
      commit();
      await first;
      expect((await second).rows[0]).toEqual({ outcome: "stored", fingerprint: fingerprint(6) });
      expect(await versionOf(subscriber.subscriber_id)).toBe(before);
    },
  );
});
