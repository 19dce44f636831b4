/**
 * The same `idempotency-key` headers to the MSW handlers and to the reference server: the same status, message and
 * echoed bytes for every shape (both judge the key with the model's `idempotencyKeyProblem`). A header reaches fetch
 * and Node one character per byte, so a UTF-8 key is written here as its bytes in Latin-1.
 */
import { messages } from "@novu-query/express";
import { describe, expect, it } from "vitest";
import { serverBesideMsw } from "../support/server-beside-msw.js";

const mswBase = "http://msw.idempotency-key.test";
const asSent = (text: string) => Buffer.from(text, "utf8").toString("latin1");

describe("idempotency keys in MSW and in the server", () => {
  const running = serverBesideMsw(mswBase, { subscribers: 10, notifications: 10 });

  async function patch(base: string, key: string) {
    const response = await fetch(`${base}/v2/subscribers/idempotency-key-test`, {
      method: "PATCH",
      headers: {
        authorization: `ApiKey ${running.server.production.apiKey}`,
        "content-type": "application/json",
        "idempotency-key": key,
      },
      body: JSON.stringify({ firstName: "Ada" }),
    });
    const body = (await response.json()) as { message?: string };
    return {
      status: response.status,
      echoed: response.headers.get("idempotency-key"),
      ...(response.status === 400 && { message: body.message }),
    };
  }

  const run = Date.now();
  const shapes: [string, string, { status: number; message?: string }][] = [
    ["printable ASCII", `a key ~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}-${run}`, { status: 404 }],
    ["255 characters", "k".repeat(255), { status: 404 }],
    ["256 characters", "k".repeat(256), { status: 400, message: messages.idempotencyKeyTooLong("k".repeat(256)) }],
    ["UTF-8 beyond ASCII", asSent(`clé-ü-€-${run}`), { status: 400, message: messages.idempotencyKeyNotAscii }],
    ["bytes that are not UTF-8", "k\u00ff1", { status: 400, message: messages.idempotencyKeyNotAscii }],
    ["a tab inside", "a\tb", { status: 400, message: messages.idempotencyKeyNotAscii }],
  ];

  it.each(shapes)("answers a key of %s alike, echoing what was sent", async (_, key, expected) => {
    const [fromMsw, fromServer] = [await patch(mswBase, key), await patch(running.server.baseUrl, key)];
    expect(fromServer).toMatchObject(expected);
    expect(fromMsw).toEqual(fromServer);
    if (expected.status !== 400) expect(fromServer.echoed).toBe(key);
  });
});
