/**
 * The IdempotencyStore example on a synchronous driver (docs/examples/sqlite-idempotency-store.ts), on Node's own
 * `node:sqlite` (Node 22.5 and later: CI's Node 24 run; skipped in words on Node 20): concurrent PATCHes with one key
 * applied once, the change and its answer committed together, a failed handler's write rolled back with nothing kept.
 */

import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFactories } from "@novu-query/contract/factories";
import { type AuthContext, createApp, createHttpServer, type Handlers, handler } from "@novu-query/express";
import { afterAll, describe, expect, it } from "vitest";
import { type Sqlite, SqliteIdempotencyStore } from "../../docs/examples/sqlite-idempotency-store.js";

const sqlite = await import("node:sqlite" as string).catch(() => undefined);
const subscriber = createFactories({ seed: 9 }).subscriber({ subscriberId: "sub-1" });

describe.runIf(sqlite)("the IdempotencyStore example on node:sqlite", () => {
  const dir = mkdtempSync(join(tmpdir(), "sqlite-idempotency-"));
  const file = join(dir, "service.db");
  const open = () => new (sqlite as { DatabaseSync: new (path: string) => Sqlite }).DatabaseSync(file);
  const closers: (() => void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  afterAll(() => {
    for (const close of closers.reverse()) close();
  });

  async function serve(failAfterWrite: boolean) {
    const setup = open();
    setup.exec("CREATE TABLE IF NOT EXISTS patches (n INTEGER)");
    setup.close();
    const handlers: Partial<Handlers> = {
      patchSubscriber: handler("patchSubscriber", async (_input, context) => {
        const db = (context as unknown as { db: Sqlite }).db;
        db.prepare("INSERT INTO patches VALUES (1)").run();
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (failAfterWrite) throw new Error("the handler failed after its write");
        return { status: 200, body: subscriber };
      }),
    };
    const app = createApp({
      handlers,
      logger: { info() {}, warn() {}, error() {} },
      authenticate: () => ({ environmentId: "e".repeat(24) }) as unknown as AuthContext,
      idempotency: { store: new SqliteIdempotencyStore(open) },
      services: (_req, transaction) => ({ db: transaction ?? open() }) as never,
    });
    const server = createHttpServer(app).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    closers.push(() => server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const count = () => {
    const db = open();
    const { n } = db.prepare("SELECT count(*) AS n FROM patches").get() as { n: number };
    db.close();
    return n;
  };
  const send = (base: string, key: string) =>
    fetch(`${base}/v2/subscribers/sub-1`, {
      method: "PATCH",
      headers: { authorization: "ApiKey k", "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ firstName: "Ada" }),
    });

  it("applies twenty concurrent PATCHes with one key once, and replays the answer", async () => {
    const base = await serve(false);
    const before = count();
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(base, "one-key")));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(count()).toBe(before + 1);
    const replay = await send(base, "one-key");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(count()).toBe(before + 1);
  });

  it("rolls a failed handler's write back with nothing kept for its key", async () => {
    const base = await serve(true);
    const before = count();
    expect((await send(base, "failing-key")).status).toBe(500);
    expect(count()).toBe(before);
  });
});

it.skipIf(sqlite)("needs node:sqlite (Node 22.5 or later) for the IdempotencyStore example", () => {});
