/**
 * The same `Authorization` headers to the MSW handlers and to the reference server: the same status and message for
 * every shape, on every operation (both read it with the model's `readAuthorization`). Measured before: 12 of 52
 * answers differed (`Basic abc` named the scheme "Bearer" in MSW; `ApiKey <key> extra` was 200 from MSW).
 */
import { createStatefulHandlers } from "@novu-query/contract/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIds, operationTable } from "../../generated/operations.js";
import { startTestServer, type TestServer } from "../support/server.js";

const mswBase = "http://msw.authentication.test";

/** Every header shape: `<key>` is a valid key, `<other>` a well-formed unknown one; undefined sends no header. */
const shapes: (string | undefined)[] = [
  undefined,
  "",
  "ApiKey",
  "ApiKey ",
  "ApiKey <key>",
  "ApiKey  <key>",
  "ApiKey\t<key>",
  "apikey <key>",
  "APIKEY <key>",
  "Bearer <key>",
  "Basic abc",
  "Token",
  "ApiKey=<key>",
  "ApiKey <key> extra",
  "ApiKey <other>",
  `${"X".repeat(100)} <key>`,
];

describe("authentication in MSW and in the server", () => {
  let server: TestServer;
  let msw: ReturnType<typeof setupServer>;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 10, notifications: 10 } });
    const { production, development } = server;
    const mock = createStatefulHandlers({
      baseUrl: mswBase,
      apiKeys: { [production.apiKey]: production.environmentId, [development.apiKey]: development.environmentId },
    });
    msw = setupServer(...mock.handlers);
    msw.listen({ onUnhandledRequest: "bypass" });
  });
  afterAll(async () => {
    msw?.close();
    await server?.close();
  });

  async function answer(base: string, id: (typeof operationIds)[number], header: string | undefined) {
    const { method, path, pathExamples } = operationTable[id];
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (pathExamples as Record<string, string>)[name] ?? name);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (header !== undefined) {
      headers.authorization = header.replace("<key>", server.production.apiKey).replace("<other>", "0".repeat(32));
    }
    const response = await fetch(base + url, {
      method: method.toUpperCase(),
      headers,
      ...(method === "patch" ? { body: "{}" } : {}),
    });
    const body = (await response.json()) as { message?: string };
    return response.status === 401 ? { status: 401, message: body.message } : { status: "not 401" };
  }

  it.each(operationIds)("answers every header shape alike on %s", async (id) => {
    const differences: string[] = [];
    for (const shape of shapes) {
      const [fromMsw, fromServer] = [await answer(mswBase, id, shape), await answer(server.baseUrl, id, shape)];
      if (JSON.stringify(fromMsw) !== JSON.stringify(fromServer)) {
        differences.push(
          `${JSON.stringify(shape)}: MSW ${JSON.stringify(fromMsw)}, server ${JSON.stringify(fromServer)}`,
        );
      }
    }
    expect(differences).toEqual([]);
  });

  it("sends shapes of every kind of 401 and some that pass", async () => {
    const messages = new Set<string | undefined>();
    let passed = 0;
    for (const shape of shapes) {
      const result = await answer(server.baseUrl, "searchSubscribers", shape);
      if (result.status === 401) messages.add(result.message);
      else passed += 1;
    }
    expect([...messages]).toEqual(
      expect.arrayContaining([
        "Missing authorization header",
        'Invalid authentication scheme: "Basic"',
        "Unauthorized",
        "API Key not found",
      ]),
    );
    expect(passed).toBeGreaterThan(0);
  });
});
