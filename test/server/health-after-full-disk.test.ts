/**
 * The probes after a full disk (server/health.ts, server/app.ts): "storage full" from the first write refused for lack
 * of space, "ok" again from the first write acknowledged after it, at once (it was up to 10 s later), and an
 * idempotent replay, which writes nothing, is no sign that space is back. test/reliability/full-disk.test.ts does the
 * same on a real disk filled under PGlite; here the database's refusal (disk_full, 53100) is made by the handler, on
 * every driver.
 */
import { randomUUID } from "node:crypto";
import type { Handler } from "@novu-query/express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers } from "../../server/handlers/index.js";
import { drivers } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe.each(drivers)("/healthz after a full disk (%s)", (driver) => {
  let server: TestServer;
  let diskFull = false;
  const patchSubscriber: Handler<"patchSubscriber"> = async (input, context) => {
    if (diskFull) throw Object.assign(new Error("could not extend file: No space left on device"), { code: "53100" });
    return handlers.patchSubscriber(input, context);
  };
  beforeAll(async () => {
    server = await startTestServer({ driver, handlers: { ...handlers, patchSubscriber } });
  });
  afterAll(() => server?.close());

  const patch = (key: string) =>
    server.request(`/v2/subscribers/${server.production.subscribers[0]?.subscriber_id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ data: { n: key } }),
    });
  const probe = async () => {
    const response = await server.request("/healthz", { key: null });
    return { status: response.status, body: await response.json() };
  };

  it("says 'storage full' from the first refused write, and 'ok' from the first acknowledged one", async () => {
    expect(await probe()).toEqual({ status: 200, body: { status: "ok" } });
    const acknowledged = randomUUID();
    expect((await patch(acknowledged)).status).toBe(200);

    diskFull = true;
    const refused = await patch(randomUUID());
    expect(refused.status).toBe(503);
    expect(await probe()).toMatchObject({ status: 503, body: { status: "storage full" } });

    // A replay answers 200 from the stored answer: it wrote nothing, and says nothing of the disk.
    const replay = await patch(acknowledged);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(await probe()).toMatchObject({ status: 503, body: { status: "storage full" } });

    diskFull = false;
    expect((await patch(randomUUID())).status).toBe(200);
    expect(await probe()).toEqual({ status: 200, body: { status: "ok" } });
    expect(
      server.logs.filter((line) => line.includes("a write succeeded: the database takes writes again")),
    ).toHaveLength(1);
  });
});
