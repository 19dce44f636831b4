import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorDto, ValidationErrorDto } from "../../generated/schema.js";
import { type PrismProcess, specFile, startPrism } from "../../mock/prism.js";
import { freePort, startMock } from "../../scripts/processes.js";
import { json, startTestServer, type TestServer } from "../support/server.js";

const key = { authorization: "ApiKey any-key" };

describe("npm run mock (static)", () => {
  let mock: PrismProcess;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock?.stop());

  it("answers without a key with the 401 example", async () => {
    const response = await fetch(`${mock.url}/v1/notifications`);
    expect(response.status).toBe(401);
    expect(await json<ErrorDto>(response)).toMatchObject({ statusCode: 401, message: "Missing authorization header" });
  });

  it("answers an invalid request with 422 in our error shape", async () => {
    const response = await fetch(`${mock.url}/v1/notifications?limit=500`, { headers: key });
    expect(response.status).toBe(422);
    expect(Object.keys((await json<ValidationErrorDto>(response)).errors)).toContain("query.limit");
  });

  it.each([
    ["GET", "/v2/subscribers", 400, "Cannot specify both"],
    ["PATCH", "/v2/subscribers/user-8421", 404, "Subscriber user-0000 was not found"],
    ["PATCH", "/v2/subscribers/user-8421", 409, "is currently being processed"],
    ["PATCH", "/v2/subscribers/user-8421", 413, "larger than the limit"],
    ["PATCH", "/v2/subscribers/user-8421", 415, "Content-Type must be application/json"],
    ["GET", "/v1/notifications", 402, "retention period"],
    ["GET", "/v1/notifications", 429, "rate limit"],
    ["GET", "/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6", 500, "errorId"],
  ])("serves %s %s with Prefer: code=%i", async (method, path, code, text) => {
    const response = await fetch(`${mock.url}${path}`, {
      method,
      headers: { ...key, prefer: `code=${code}`, "content-type": "application/json" },
      ...(method === "PATCH" ? { body: "{}" } : {}),
    });
    expect(response.status).toBe(code);
    const body = await response.text();
    expect(body).toContain(text);
    expect(JSON.parse(body).statusCode).toBe(code);
  });

  it("serves a named example with Prefer: example=", async () => {
    const response = await fetch(`${mock.url}/v2/subscribers`, {
      headers: { ...key, prefer: "example=SearchSubscribersEmpty" },
    });
    expect(await json<object>(response)).toMatchObject({ data: [], totalCount: 0 });
    const unknownKey = await fetch(`${mock.url}/v1/notifications`, {
      headers: { ...key, prefer: "code=401, example=UnauthorizedKeyNotFound" },
    });
    expect((await json<ErrorDto>(unknownKey)).message).toBe("API Key not found");
  });
});

describe("npm run proxy", () => {
  let server: TestServer;
  let broken: Server;
  let proxyToServer: PrismProcess;
  let proxyToBroken: PrismProcess;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 20, notifications: 20 } });
    // An implementation that gets the contract wrong: `next` missing, `totalCount` a string.
    broken = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: [], previous: null, totalCount: "0", totalCountCapped: false }));
    });
    await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
    const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    [proxyToServer, proxyToBroken] = await Promise.all([
      startPrism(["proxy", specFile, server.baseUrl], await freePort()),
      startPrism(["proxy", specFile, brokenUrl], await freePort()),
    ]);
  });
  afterAll(async () => {
    await Promise.all([proxyToServer?.stop(), proxyToBroken?.stop(), server?.close()]);
    broken?.close();
  });

  it("passes a conforming implementation's answers through without violations", async () => {
    const response = await fetch(`${proxyToServer.url}/v2/subscribers?limit=2`, {
      headers: { authorization: `ApiKey ${server.production.apiKey}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("sl-violations")).toBeNull();
    expect((await json<{ data: unknown[] }>(response)).data).toHaveLength(2);
  });

  it("reports the answers that break the contract", async () => {
    const response = await fetch(`${proxyToBroken.url}/v2/subscribers`, { headers: key });
    const violations = JSON.parse(response.headers.get("sl-violations") ?? "[]") as { message: string }[];
    const messages = violations.map((v) => v.message).join("\n");
    expect(messages).toMatch(/next/);
    expect(messages).toMatch(/totalCount/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(proxyToBroken.output()).toMatch(/Violation|violation/);
  });
});
