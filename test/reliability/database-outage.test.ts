/**
 * PostgreSQL (and Citus) ending the server's connections under load: an administrator's pg_terminate_backend, and a
 * database that goes away and comes back (a restart, a network cut: a TCP proxy in between refuses everything for a
 * while). Before the fix the process died of node-postgres's unhandled "error" event (57P01) within a few rounds.
 * Now it lives; requests in flight and during the outage are answered 503 with `Retry-After`; `/readyz` says not
 * ready until the pool has reconnected; no acknowledged PATCH is lost.
 */
import { randomUUID } from "node:crypto";
import { messages } from "@novu-query/express";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { createPostgresDatabase, drivers } from "../support/databases.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

interface Answer {
  kind: "patch" | "search" | "list";
  status: number;
  text: string;
  retryAfter: string | null;
  key?: string;
  body?: string;
}

const timeout = () => AbortSignal.timeout(20_000);

function request(server: ServerProcess, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `ApiKey ${server.keys.Production}`);
  return fetch(server.baseUrl + path, { ...init, headers, signal: timeout() });
}

async function patch(server: ServerProcess, subscriberId: string, key: string, body: string): Promise<Answer> {
  const response = await request(server, `/v2/subscribers/${subscriberId}`, {
    method: "PATCH",
    body,
    headers: { "content-type": "application/json", "idempotency-key": key },
  });
  return {
    kind: "patch",
    key,
    body,
    status: response.status,
    text: await response.text(),
    retryAfter: response.headers.get("retry-after"),
  };
}

async function read(server: ServerProcess, kind: "search" | "list"): Promise<Answer> {
  const response = await request(server, kind === "search" ? "/v2/subscribers?email=example" : "/v1/notifications");
  return {
    kind,
    status: response.status,
    text: await response.text(),
    retryAfter: response.headers.get("retry-after"),
  };
}

async function terminateBackends(adminUrl: string, database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      "SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [database],
    );
    return (rows[0] as { ended: number }).ended;
  } finally {
    await admin.end();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(drivers.includes("postgres"))("the server when PostgreSQL ends its connections under load", () => {
  it("lives, answers 503 with Retry-After meanwhile, and serves again once the database is back", async () => {
    const database = await createPostgresDatabase();
    const direct = new URL(database.url);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const server = await startServerProcess({
      DATABASE_URL: viaProxy.toString(),
      DEMO_SUBSCRIBERS: "40",
      DEMO_NOTIFICATIONS: "40",
    });
    try {
      const first = await read(server, "search");
      const subscriberIds = (JSON.parse(first.text) as { data: { subscriberId: string }[] }).data.map(
        (s) => s.subscriberId,
      );
      expect(subscriberIds.length).toBeGreaterThan(0);

      const answers: Answer[] = [];
      let loading = true;
      const worker = async (n: number) => {
        for (let i = 0; loading; i++) {
          const kind = (["patch", "search", "patch", "list"] as const)[(n + i) % 4];
          try {
            answers.push(
              kind === "patch"
                ? await patch(
                    server,
                    subscriberIds[(n + i) % subscriberIds.length] as string,
                    randomUUID(),
                    JSON.stringify({ data: { worker: n, i } }),
                  )
                : await read(server, kind ?? "search"),
            );
          } catch (error) {
            answers.push({ kind: kind ?? "search", status: 0, text: String(error), retryAfter: null });
          }
        }
      };
      const workers = Array.from({ length: 8 }, (_, n) => worker(n));

      const adminUrl = process.env.TEST_DATABASE_URL as string;
      const databaseName = direct.pathname.slice(1);
      const readiness: number[] = [];
      await sleep(800);
      expect(await terminateBackends(adminUrl, databaseName)).toBeGreaterThan(0);
      await sleep(1200);
      await terminateBackends(adminUrl, databaseName);
      await sleep(1200);
      proxy.cut();
      for (let i = 0; i < 4; i++) {
        readiness.push((await fetch(`${server.baseUrl}/readyz`, { signal: timeout() })).status);
        await sleep(300);
      }
      proxy.restore();
      await sleep(2500);
      loading = false;
      await Promise.all(workers);

      expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
      const statuses = [...new Set(answers.map((answer) => answer.status))].sort();
      expect(statuses, answers.find((a) => a.status !== 200 && a.status !== 503)?.text).toEqual([200, 503]);
      const refused = answers.filter((answer) => answer.status === 503);
      for (const answer of refused) {
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
        expect(Object.values(messages)).toContain(JSON.parse(answer.text).message);
      }
      expect(refused.some((answer) => JSON.parse(answer.text).message === messages.databaseUnavailable)).toBe(true);
      expect(readiness).toContain(503);

      // Back: the pool has reconnected, and readiness says so.
      for (let i = 0; ; i++) {
        const ready = await fetch(`${server.baseUrl}/readyz`, { signal: timeout() });
        if (ready.status === 200) break;
        expect(i, "readyz still not 200 after 10 s").toBeLessThan(40);
        await sleep(250);
      }
      expect((await read(server, "list")).status).toBe(200);

      // Every acknowledged PATCH was kept: its idempotency key replays its answer.
      const acknowledged = answers.filter((answer) => answer.kind === "patch" && answer.status === 200);
      expect(acknowledged.length).toBeGreaterThan(10);
      for (const ack of acknowledged) {
        const subscriberId = (JSON.parse(ack.text) as { subscriberId: string }).subscriberId;
        const replay = await patch(server, subscriberId, ack.key as string, ack.body as string);
        expect(replay.status).toBe(200);
        expect(replay.text).toBe(ack.text);
      }
      console.log(
        `database outage: ${answers.length} requests, ${refused.length} answered 503 with Retry-After, none 500; ${acknowledged.length} acknowledged PATCHes all kept`,
      );
    } finally {
      await server.stop();
      await proxy.close();
      await database.drop();
    }
  }, 180_000);
});
