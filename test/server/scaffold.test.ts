import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIds } from "../../generated/operations.js";
import type { ErrorDto } from "../../generated/schema.js";
import { scaffold, stubSource } from "../../scripts/scaffold.js";
import { assertHandlersMatchSpec } from "../../server/bind.js";
import { handler } from "../../server/define-handler.js";
import { ApiError } from "../../server/errors.js";
import { handlers } from "../../server/handlers/index.js";
import { messages } from "../../server/messages.js";
import { NotImplementedError } from "../../server/operation-errors.js";
import { json, startTestServer, type TestServer } from "../support/server.js";

const handlersDir = fileURLToPath(new URL("../../server/handlers/", import.meta.url));

describe("npm run scaffold", () => {
  it("has nothing to do when every operation has a handler", () => {
    const copy = mkdtempSync(join(tmpdir(), "handlers-"));
    try {
      cpSync(handlersDir, copy, { recursive: true });
      expect(scaffold(operationIds, copy).written).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("writes a stub for a new operation and registers it", () => {
    const copy = mkdtempSync(join(tmpdir(), "handlers-"));
    try {
      cpSync(handlersDir, copy, { recursive: true });
      const { written } = scaffold([...operationIds, "deleteSubscriber"], copy);
      expect(written).toEqual([join(copy, "deleteSubscriber.ts")]);
      expect(readFileSync(join(copy, "deleteSubscriber.ts"), "utf8")).toBe(stubSource("deleteSubscriber"));
      expect(stubSource("deleteSubscriber")).toContain('export const deleteSubscriber = handler("deleteSubscriber",');
      const index = readFileSync(join(copy, "index.ts"), "utf8");
      // Among the imports, in the order Biome keeps (check it with `npm run check`: add-operation.test.ts does).
      const sources = [...index.matchAll(/^import .* from "(\.\/[^"]+)";$/gm)].map((match) => match[1]);
      expect(sources).toContain("./deleteSubscriber.js");
      expect(sources).toEqual([...sources].sort());
      // The doc comment stays on the export it documents.
      expect(index).toMatch(/\*\/\nexport const handlers = \{/);
      expect(index).toMatch(/ {2}deleteSubscriber,\n\} satisfies Handlers;/);
      expect(scaffold([...operationIds, "deleteSubscriber"], copy).written).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("the start-up check", () => {
  it("refuses handlers that do not match the spec one to one", () => {
    expect(() => assertHandlersMatchSpec(handlers)).not.toThrow();
    const { getNotification: _, ...missing } = handlers;
    expect(() => assertHandlersMatchSpec(missing)).toThrow("Missing: getNotification");
    expect(() => assertHandlersMatchSpec({ ...handlers, deleteSubscriber: handlers.getNotification })).toThrow(
      "Not in the spec: deleteSubscriber",
    );
  });
});

describe("a scaffolded stub", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 5, notifications: 5 },
      handlers: {
        ...handlers,
        getNotification: handler("getNotification", async () => {
          throw new NotImplementedError("getNotification");
        }),
      },
    });
  });
  afterAll(() => server?.close());

  it("answers 501 in the error shape", async () => {
    const response = await server.request("/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6");
    expect(response.status).toBe(501);
    expect(await json<ErrorDto>(response)).toMatchObject({
      statusCode: 501,
      error: "Not Implemented",
      message: "The operation getNotification is not implemented yet",
    });
  });
});

describe("the binding's status guard", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 5, notifications: 5 },
      handlers: {
        ...handlers,
        // What the types refuse (see binding.test-d.ts) but a cast or a hand-made ApiError can still do.
        getNotification: async () => {
          throw new ApiError(418, "I'm a teapot");
        },
        listNotifications: async () => ({ status: 201, body: { data: [] } }) as never,
      },
    });
  });
  afterAll(() => server?.close());

  it("answers 500 and logs the handler's undeclared error status", async () => {
    const response = await server.request("/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6");
    expect(response.status).toBe(500);
    const body = await json<ErrorDto>(response);
    expect(body).toMatchObject({ statusCode: 500, message: messages.internal });
    const logged = server.logs.find((line) => line.includes(body.errorId as string)) ?? "";
    expect(logged).toContain("the getNotification handler answered 418, which the spec does not declare for it");
  });

  it("answers 500 for an undeclared success status instead of passing it on", async () => {
    const response = await server.request("/v1/notifications");
    expect(response.status).toBe(500);
    const body = await json<ErrorDto>(response);
    const logged = server.logs.find((line) => line.includes(body.errorId as string)) ?? "";
    expect(logged).toContain("the listNotifications handler answered 201");
  });
});
