import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import type {
  ErrorDto,
  ListNotificationsResponse,
  Notification,
  SearchSubscribersResponse,
  ValidationErrorDto,
} from "../../generated/schema.js";
import { type PrismProcess, specFile, startPrism, startMock as startPrismMock } from "../../mock/prism.js";
import { freePort, startMock } from "../../scripts/processes.js";
import { outputMatching } from "../support/output.js";
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

/** Words of the lorem ipsum that json-schema-faker fills strings with when a schema gives no hint. */
const lorem =
  /\b(lorem|ipsum|dolor|amet|consectetur|adipisicing|elit|eiusmod|tempor|incididunt|labore|magna|aliqua|minim|veniam|nostrud|exercitation|ullamco|laboris|nisi|aliquip|commodo|consequat|duis|aute|irure|reprehenderit|voluptate|velit|esse|cillum|fugiat|nulla|pariatur|excepteur|occaecat|cupidatat|proident|sunt|culpa|officia|deserunt|mollit|anim|laborum)\b/i;

/** Every string in a body with where it is, for the checks below. */
function strings(value: unknown, at = ""): [string, string][] {
  if (typeof value === "string") return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${at}[${i}]`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => [
      ...strings(key, `${at}{key}`),
      ...strings(item, `${at}.${key}`),
    ]);
  }
  return [];
}

/** What a person would find implausible in one generated answer: one line each. */
function implausible(body: SearchSubscribersResponse | ListNotificationsResponse | Notification): string[] {
  const found = strings(body)
    .filter(([, text]) => lorem.test(text))
    .map(([at, text]) => `lorem ipsum at ${at}: ${text}`);
  const rows: { _id: string; createdAt: string; updatedAt: string; _environmentId: string }[] =
    "data" in body ? body.data : [body];
  if (new Set(rows.map((row) => row._id)).size !== rows.length) found.push("a page repeats an _id");
  if (new Set(rows.map((row) => row._environmentId)).size > 1) found.push("a page spans environments");
  for (const row of rows) {
    if (row.createdAt > row.updatedAt) found.push(`${row._id} updated before it was created`);
  }
  if ("totalCount" in body) {
    if (body.totalCount > 500) found.push(`totalCount ${body.totalCount}`);
    for (const s of body.data) {
      if (s.__v > 6 || s.deleted) found.push(`${s._id}: __v ${s.__v}, deleted ${s.deleted}`);
      if (s.email !== null && !s.email.endsWith("@example.com")) found.push(`${s._id}: e-mail ${s.email}`);
      if (s.phone !== null && !s.phone.startsWith("+4930")) found.push(`${s._id}: phone ${s.phone} (Berlin)`);
      if (s.timezone !== null && s.timezone !== "Europe/Berlin") found.push(`${s._id}: time zone ${s.timezone}`);
    }
  }
  for (const n of rows as Notification[]) {
    if (n.channels && new Set(n.channels).size !== n.channels.length) found.push(`${n._id}: channels ${n.channels}`);
  }
  return found;
}

describe("npm run mock -- --dynamic", () => {
  let mock: PrismProcess;
  beforeAll(async () => {
    mock = await startPrismMock({ port: await freePort(), dynamic: true });
  });
  afterAll(() => mock?.stop());

  it("generates answers that are valid and plausible: no lorem ipsum, one environment, Berlin's subscribers", async () => {
    const ajv = createSpecAjv();
    const answers: [string, string, unknown][] = [];
    for (let i = 0; i < 15; i++) {
      for (const [path, schema] of [
        ["/v2/subscribers", "SearchSubscribersResponse"],
        ["/v1/notifications", "ListNotificationsResponse"],
        ["/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6", "Notification"],
      ] as const) {
        const response = await fetch(`${mock.url}${path}`, { headers: key });
        expect(response.status).toBe(200);
        answers.push([path, schema, await response.json()]);
      }
    }
    const problems = answers.flatMap(([path, schema, body]) => {
      const validate = validatorAt(ajv, `/components/schemas/${schema}`);
      const invalid = validate(body) ? [] : [`invalid: ${ajv.errorsText(validate.errors)}`];
      return [...invalid, ...implausible(body as Notification)].map((problem) => `${path}: ${problem}`);
    });
    expect(problems).toEqual([]);
  }, 60_000);
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
    await outputMatching(proxyToBroken, /Violation|violation/);
  });
});
