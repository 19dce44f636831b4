import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiError, type Handlers, handler, messages, NotImplementedError } from "@novu-query/express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingHandlers } from "../../express/bind.js";
import { scaffold, stubSource } from "../../express/scaffold.js";
import { operationIds } from "../../generated/operations.js";
import type { ErrorDto } from "../../generated/schema.js";
import { handlers } from "../../server/handlers/index.js";
import { json, startTestServer, type TestServer } from "../support/server.js";

const handlersDir = fileURLToPath(new URL("../../server/handlers/", import.meta.url));

describe("npm run scaffold", () => {
  it("has nothing to do when every operation has a handler", () => {
    const copy = mkdtempSync(join(tmpdir(), "handlers-"));
    try {
      cpSync(handlersDir, copy, { recursive: true });
      expect(scaffold(operationIds, copy)).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("writes a stub for a new operation and registers it", () => {
    const copy = mkdtempSync(join(tmpdir(), "handlers-"));
    try {
      cpSync(handlersDir, copy, { recursive: true });
      const written = scaffold([...operationIds, "deleteSubscriber"], copy);
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
      expect(scaffold([...operationIds, "deleteSubscriber"], copy)).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("the start-up check", () => {
  it("refuses a handler for an operation the contract lacks, and lists the operations that have none", () => {
    expect(missingHandlers(handlers)).toEqual([]);
    const { getNotification: _, ...missing } = handlers;
    expect(missingHandlers(missing)).toEqual(["getNotification"]);
    expect(() => missingHandlers({ ...handlers, deleteSubscriber: handlers.getNotification })).toThrow(
      "deleteSubscriber is not an operation of it",
    );
  });
});

describe("a scaffolded stub, and an operation without a handler", () => {
  let server: TestServer;
  beforeAll(async () => {
    const { listNotifications: _missing, ...others } = handlers;
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 5, notifications: 5 },
      // What the types refuse, as a JavaScript app (or a cast) can still do it.
      handlers: {
        ...others,
        getNotification: handler("getNotification", async () => {
          throw new NotImplementedError("getNotification");
        }),
      } as Handlers,
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

  it("answers 501 in the error shape where there is no handler at all, and says so at start", async () => {
    const response = await server.request("/v1/notifications");
    expect(response.status).toBe(501);
    expect(await json<ErrorDto>(response)).toMatchObject({
      statusCode: 501,
      message: "The operation listNotifications is not implemented yet",
    });
    expect(server.logs.join("")).toContain('"operations":["listNotifications"]');
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
