import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Subscriber } from "../../generated/schema.js";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { defaultDemoOptions, generateDemoData } from "../../server/demo/generate.js";
import { openStore } from "../../server/store/store.js";
import { storedAnswerOf } from "../../server/store/subscribers.js";
import { createPostgresDatabase, drivers } from "../support/databases.js";

const demoOptions = { ...defaultDemoOptions, subscribers: 30, notifications: 10 };
const production = generateDemoData(demoOptions)[0];
const subscribers = production?.subscribers.filter((s) => !s.deleted) ?? [];
const demoEnv = { DEMO_SUBSCRIBERS: "30", DEMO_NOTIFICATIONS: "10" };

interface Acknowledged {
  subscriberId: string;
  key: string;
  body: string;
  answer: string;
}

function send(server: ServerProcess, subscriberId: string, key: string, body: string) {
  return fetch(`${server.baseUrl}/v2/subscribers/${subscriberId}`, {
    method: "PATCH",
    body,
    headers: {
      "content-type": "application/json",
      "idempotency-key": key,
      authorization: `ApiKey ${server.keys.Production}`,
    },
  });
}

/**
 * PATCHes from 8 workers until the server dies; returns every one that was answered 200. The kill comes once `atLeast`
 * were acknowledged (or `withinMs` passed, for the assertion after it to fail) and `moreMs` later, with requests in
 * flight: counted, not timed, since a busy CI host acknowledged 16 in the 2 s that a fixed delay gave it.
 */
async function loadUntilCrash(
  server: ServerProcess,
  { atLeast, moreMs, withinMs }: { atLeast: number; moreMs: number; withinMs: number },
): Promise<Acknowledged[]> {
  const acknowledged: Acknowledged[] = [];
  let sequence = 0;
  let alive = true;
  const worker = async () => {
    while (alive) {
      const n = sequence++;
      const subscriberId = subscribers[n % subscribers.length]?.subscriber_id as string;
      const key = randomUUID();
      const body = JSON.stringify({ data: { sequence: n }, lastName: `Durable-${n}` });
      try {
        const response = await send(server, subscriberId, key, body);
        if (response.status === 200) acknowledged.push({ subscriberId, key, body, answer: await response.text() });
      } catch {
        // The connection died with the server: not acknowledged, so no promise was made.
      }
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  const until = Date.now() + withinMs;
  while (acknowledged.length < atLeast && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, moreMs));
  await server.crash();
  alive = false;
  await Promise.all(workers);
  return acknowledged;
}

const targets: { name: string; storage: () => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> }[] = [
  {
    name: "PGlite in a data directory",
    storage: async () => {
      const dir = mkdtempSync(join(tmpdir(), "durability-"));
      return { env: { DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  ...(drivers.includes("postgres")
    ? [
        {
          name: "PostgreSQL",
          storage: async () => {
            const database = await createPostgresDatabase();
            return { env: { DATABASE_URL: database.url }, cleanup: () => database.drop() };
          },
        },
      ]
    : []),
];

describe.each(targets)("durability under kill -9 ($name)", ({ name, storage }) => {
  it("keeps every acknowledged PATCH, and never a change without its idempotency record or the reverse", async () => {
    const { env, cleanup } = await storage();
    try {
      const first = await startServerProcess({ ...env, ...demoEnv });
      const acknowledged = await loadUntilCrash(first, { atLeast: 40, moreMs: 500, withinMs: 30_000 });
      expect(acknowledged.length).toBeGreaterThanOrEqual(40);

      const second = await startServerProcess({ ...env, ...demoEnv });
      for (const ack of acknowledged) {
        const replay = await send(second, ack.subscriberId, ack.key, ack.body);
        expect(replay.status).toBe(200);
        expect(replay.headers.get("idempotency-replay")).toBe("true");
        expect(await replay.text()).toBe(ack.answer);
      }
      // Each subscriber's latest acknowledged change is visible (or a later one that committed but was not answered).
      const latest = new Map<string, number>();
      for (const ack of acknowledged)
        latest.set(
          ack.subscriberId,
          Math.max(latest.get(ack.subscriberId) ?? -1, (JSON.parse(ack.answer) as Subscriber).__v),
        );
      for (const [subscriberId, version] of latest) {
        const search = await fetch(`${second.baseUrl}/v2/subscribers?subscriberId=${subscriberId}`, {
          headers: { authorization: `ApiKey ${second.keys.Production}` },
        });
        const now = ((await search.json()) as { data: Subscriber[] }).data[0] as Subscriber;
        expect(now.__v).toBeGreaterThanOrEqual(version);
      }
      await second.stop();

      // No half-applied change: every version step of every subscriber has exactly one stored answer.
      const opened = await openStore({ dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL, totalCountCap: 10 });
      try {
        const rows = await opened.store.db
          .selectFrom("idempotency_records")
          .select(["fingerprint", "status_code", "body", "subscriber"])
          .where("environment_id", "=", production?.environmentId as string)
          .where("status_code", "=", 200)
          .execute();
        const stored = new Map<string, number>();
        for (const row of rows) {
          // Either form of a stored answer (its text, or its subscriber's columns: D68), as a replay reads it.
          const body = JSON.parse(storedAnswerOf(row)?.body as string) as Subscriber;
          stored.set(body.subscriberId, (stored.get(body.subscriberId) ?? 0) + 1);
        }
        for (const subscriber of subscribers) {
          const found = await opened.store.subscribers.findBySubscriberId(
            production?.environmentId as string,
            subscriber.subscriber_id,
          );
          expect(found?.__v, subscriber.subscriber_id).toBe(
            subscriber.version + (stored.get(subscriber.subscriber_id) ?? 0),
          );
        }
        console.log(
          `${name}: ${acknowledged.length} PATCHes acknowledged before kill -9, all present after restart; ${rows.length} committed in all`,
        );
      } finally {
        await opened.close();
      }
    } finally {
      await cleanup();
    }
  }, 240_000);
});
