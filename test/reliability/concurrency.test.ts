import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Subscriber } from "../../generated/schema.js";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { defaultDemoOptions, generateDemoData } from "../../server/demo/generate.js";
import { createPostgresDatabase, drivers } from "../support/databases.js";
import { jsonPatch, startTestServer } from "../support/server.js";

// These rules are about lost and doubled updates, not admission or timeouts: every request may wait for its turn as
// long as it needs, in the queue and for the row's lock (test/server/overload.test.ts covers the 503s of a full queue
// and of the statement timeout). 200 PATCHes of one subscriber wait for each other's row lock: on a busy Citus
// cluster the last waited past the default 5 s statement timeout and was answered 503 (CI, 2026-11-28).
const roomy = { maxQueued: 1000, queueTimeoutMs: 60_000, statementTimeoutMs: 60_000, requestTimeoutMs: 120_000 };
const demo = {
  DEMO_SUBSCRIBERS: "40",
  DEMO_NOTIFICATIONS: "10",
  MAX_QUEUED: "1000",
  QUEUE_TIMEOUT_MS: "60000",
  STATEMENT_TIMEOUT_MS: "60000",
  REQUEST_TIMEOUT_MS: "120000",
};
const subscriberIds = generateDemoData({ ...defaultDemoOptions, subscribers: 40, notifications: 10 })[0]
  ?.subscribers.filter((s) => !s.deleted)
  .map((s) => s.subscriber_id) as string[];

interface Target {
  urls: string[];
  key: string;
}

async function patch(target: Target, i: number, subscriberId: string, body: unknown, idempotencyKey?: string) {
  const url = target.urls[i % target.urls.length] as string;
  const init = jsonPatch(body, idempotencyKey ? { "idempotency-key": idempotencyKey } : {});
  return fetch(`${url}/v2/subscribers/${subscriberId}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `ApiKey ${target.key}` },
  });
}

async function current(target: Target, subscriberId: string): Promise<Subscriber> {
  return (await (await patch(target, 0, subscriberId, {})).json()) as Subscriber;
}

/** The two concurrency promises, against one target (one or several server processes on one database). */
function concurrencyRules(describeName: string, setup: () => Promise<{ target: Target; close(): Promise<void> }>) {
  describe(describeName, () => {
    let target: Target;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ target, close } = await setup());
    }, 180_000);
    afterAll(() => close?.());

    it("applies 100 concurrent identical PATCHes with one key exactly once", async () => {
      const subscriberId = subscriberIds[0] as string;
      const before = await current(target, subscriberId);
      const key = `same-key-${Date.now()}`;
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => patch(target, i, subscriberId, { firstName: "Exactly-once" }, key)),
      );
      const statuses = responses.map((r) => r.status);
      expect(
        statuses.every((s) => s === 200 || s === 409),
        statuses.join(","),
      ).toBe(true);
      const bodies = await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text()));
      expect(bodies.length).toBeGreaterThan(0);
      expect(new Set(bodies).size).toBe(1);
      const after = await current(target, subscriberId);
      expect(after.__v).toBe(before.__v + 1);
      console.log(
        `${describeName}: 100 identical requests -> ${bodies.length} x 200 (1 applied, the rest replays), ${100 - bodies.length} x 409`,
      );
    });

    it("applies 200 concurrent PATCHes with distinct keys to one subscriber: __v + 200, nothing lost", async () => {
      const subscriberId = subscriberIds[1] as string;
      const before = await current(target, subscriberId);
      const fields = ["firstName", "lastName", "phone", "avatar"] as const;
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          patch(
            target,
            i,
            subscriberId,
            { [fields[i % 4] as string]: `writer-${i}`, data: { writer: i } },
            `distinct-${Date.now()}-${i}`,
          ),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
      const versions = (await Promise.all(responses.map((r) => r.json() as Promise<Subscriber>))).map((s) => s.__v);
      expect(new Set(versions).size).toBe(200);
      const after = await current(target, subscriberId);
      expect(after.__v).toBe(before.__v + 200);
      // The last write of each field is the one with the highest __v among the writes to it.
      for (const [f, field] of fields.entries()) {
        expect(String(after[field])).toMatch(/^writer-\d+$/);
        expect(Number(String(after[field]).split("-")[1]) % 4).toBe(f);
      }
      console.log(`${describeName}: 200 distinct concurrent patches -> __v ${before.__v} -> ${after.__v}`);
    });
  });
}

for (const driver of drivers) {
  concurrencyRules(`concurrency, one in-process server (${driver})`, async () => {
    const server = await startTestServer({ driver, demo: { subscribers: 40, notifications: 10 }, config: roomy });
    return { target: { urls: [server.baseUrl], key: server.production.apiKey }, close: () => server.close() };
  });
}

if (drivers.includes("postgres")) {
  concurrencyRules("concurrency, two server processes on one PostgreSQL", async () => {
    const database = await createPostgresDatabase();
    const first = await startServerProcess({ DATABASE_URL: database.url, ...demo });
    // The second process finds the data there already and seeds nothing.
    const second: ServerProcess = await startServerProcess({ DATABASE_URL: database.url, ...demo });
    return {
      target: { urls: [first.baseUrl, second.baseUrl], key: first.keys.Production as string },
      async close() {
        await Promise.all([first.stop(), second.stop()]);
        await database.drop();
      },
    };
  });
}
