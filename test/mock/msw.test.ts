/**
 * The contract's MSW handlers (`@novu-query/contract/msw`) in Vitest on Node, through `setupServer` intercepting
 * `fetch`: the same shape-level conformance rules the Prism mock passes, every documented answer by name, the
 * request checks (401/415/400/422 as the server words them) and the typed overrides.
 */
import { messages } from "@novu-query/express";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../conformance/run.js";
import { createSpecAjv, spec, validatorAt } from "../../conformance/spec-validator.js";
import { createClient, listNotificationPages, searchSubscriberPages } from "../../contract/index.js";
import { answer, createHandlers, exampleBody, handlers, respond } from "../../contract/msw.js";
import { type OperationId, operationIds, operationTable } from "../../generated/operations.js";
import type { ErrorDto, ValidationErrorDto } from "../../generated/schema.js";

const baseUrl = "http://msw.test";
const apiKey = "any-key";
const server = setupServer(...handlers);
const api = createClient({ baseUrl, apiKey });
const ajv = createSpecAjv();

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function call(path: string, init: RequestInit = {}, authorization: string | null = `ApiKey ${apiKey}`) {
  const headers = new Headers(init.headers);
  if (authorization !== null) headers.set("authorization", authorization);
  return fetch(`${baseUrl}${path}`, { ...init, headers });
}

/** A concrete request path for an operation (the path parameters from its examples). */
/** The value each path parameter gets in these requests. */
const samples: Record<string, string> = { subscriberId: "user-1", notificationId: "66b7e1d0c3a2b1f0e9d8c7b6" };

function samplePath(id: OperationId): string {
  return operationTable[id].path.replace(/\{(\w+)\}/g, (_whole, name: string) => samples[name] ?? name);
}

/** Where the spec defines an operation's answer for a status (following a $ref into components/responses). */
function responsePointer(id: OperationId, status: number): string {
  const { path, method } = operationTable[id];
  const operation = (spec.paths as Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>)[
    path
  ]?.[method];
  const ref = operation?.responses[String(status)]?.$ref;
  return ref ? ref.slice(1) : `/paths/${path.replace(/\//g, "~1")}/${method}/responses/${status}`;
}

function sampleInit(id: OperationId, headers: Record<string, string> = {}): RequestInit {
  const { method, hasBody } = operationTable[id];
  return {
    method: method.toUpperCase(),
    headers: { ...(hasBody && { "content-type": "application/json" }), ...headers },
    ...(hasBody && { body: "{}" }),
  };
}

describe("MSW handlers from the contract", () => {
  it("pass the shape-level conformance rules, as the Prism mock does", async () => {
    const report = await runConformance({ baseUrl, apiKey, level: "shape" });
    expect(report.results.filter((result) => !result.passed)).toEqual([]);
    expect(report.passed).toBeGreaterThanOrEqual(10);
  });

  it("answer the typed client with the first named example of each operation", async () => {
    const list = await api.GET("/v1/notifications");
    expect(list.data).toEqual(exampleBody("listNotifications", 200));
    const search = await api.GET("/v2/subscribers");
    expect(search.data).toEqual(exampleBody("searchSubscribers", 200, "SearchSubscribersFirstPage"));
    const notification = await api.GET("/v1/notifications/{notificationId}", {
      params: { path: { notificationId: "66b7e1d0c3a2b1f0e9d8c7b7" } },
    });
    expect(notification.data).toEqual({ ...exampleBody("getNotification", 200), _id: "66b7e1d0c3a2b1f0e9d8c7b7" });
  });

  it("let a list screen work on the examples: filters, lookups, PATCHes and gets of the records it lists", async () => {
    const [jonas, maya] = exampleBody("searchSubscribers", 200, "SearchSubscribersFirstPage").data;
    if (!jonas || !maya) throw new Error("the search example has two subscribers");
    const filtered = await api.GET("/v2/subscribers", { params: { query: { email: "@example.com" } } });
    expect(filtered.data).toEqual({ data: [maya], next: null, previous: null, totalCount: 1, totalCountCapped: false });
    const none = await api.GET("/v2/subscribers", { params: { query: { name: "nobody" } } });
    expect(none.data?.data).toEqual([]);
    // A lookup by subscriberId: the listed subscriber, or one under the id asked for with an _id of its own.
    const listed = await api.GET("/v2/subscribers", { params: { query: { subscriberId: jonas.subscriberId } } });
    expect(listed.data?.data).toEqual([jonas]);
    const other = await api.GET("/v2/subscribers", { params: { query: { subscriberId: "user-1" } } });
    expect(other.data?.data).toEqual([{ ...jonas, subscriberId: "user-1", _id: expect.not.stringMatching(jonas._id) }]);
    // A PATCH of a listed subscriber answers with that subscriber, changed as the server changes it.
    const patched = await api.PATCH("/v2/subscribers/{subscriberId}", {
      params: { path: { subscriberId: jonas.subscriberId } },
      body: { firstName: "Jo", phone: "+4915112345678", data: null },
    });
    expect(patched.data).toEqual({
      ...jonas,
      firstName: "Jo",
      phone: "+4915112345678",
      __v: jonas.__v + 1,
      updatedAt: expect.any(String),
    });
    const unchanged = await api.PATCH("/v2/subscribers/{subscriberId}", {
      params: { path: { subscriberId: maya.subscriberId } },
      body: { firstName: maya.firstName },
    });
    expect(unchanged.data).toEqual(maya);
    // A get of a listed notification opens it as listed.
    const page = exampleBody("listNotifications", 200, "ListNotificationsFirstPage");
    for (const row of page.data) {
      const opened = await api.GET("/v1/notifications/{notificationId}", {
        params: { path: { notificationId: row._id } },
      });
      expect(opened.data).toEqual(row);
    }
    const byChannel = await api.GET("/v1/notifications", { params: { query: { channels: ["sms"] } } });
    expect(byChannel.data?.data.map((n) => n._id)).toEqual(
      page.data.filter((n) => n.channels.includes("sms")).map((n) => n._id),
    );
    expect(byChannel.data?.hasMore).toBe(false);
  });

  it("name the requested resource in a 404, and end page walks at a second page of ids of their own", async () => {
    server.use(answer("patchSubscriber", 404));
    const missing = await api.PATCH("/v2/subscribers/{subscriberId}", {
      params: { path: { subscriberId: "user-9107" } },
      body: {},
    });
    expect(missing.error?.message).toBe("Subscriber user-9107 was not found");
    const subscribers: string[] = [];
    let pages = 0;
    for await (const page of searchSubscriberPages(api)) {
      pages += 1;
      subscribers.push(...page.data.flatMap((s) => [s._id, s.subscriberId]));
    }
    expect(pages).toBe(2);
    expect(subscribers).toHaveLength(8);
    expect(new Set(subscribers).size).toBe(8);
    const notifications: string[] = [];
    let listPages = 0;
    for await (const page of listNotificationPages(api)) {
      listPages += 1;
      notifications.push(...page.data.map((n) => n._id));
    }
    expect(listPages).toBe(2);
    expect(notifications.length).toBeGreaterThan(2);
    expect(new Set(notifications).size).toBe(notifications.length);
    // A listed notification of the second page opens as listed too.
    const last = notifications.at(-1) as string;
    const opened = await api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId: last } } });
    expect(opened.data?._id).toBe(last);
    expect(opened.data?.transactionId).toMatch(/-2$/);
  });

  // Every documented answer of every operation, by Prefer and by answer(): the status, a body the spec's schema
  // for that answer accepts, and the example's own text.
  const everyAnswer = operationIds.flatMap((id) =>
    Object.entries(operationTable[id].examples as Record<string, readonly string[]>).flatMap(([status, names]) =>
      names.map((name) => [id, Number(status), name] as const),
    ),
  );
  it.each(everyAnswer)("%s answers %i %s when asked to", async (id, status, name) => {
    const validate = validatorAt(ajv, `${responsePointer(id, status)}/content/application~1json/schema`);
    const byPrefer = await call(samplePath(id), sampleInit(id, { prefer: `code=${status}, example=${name}` }));
    server.use(answer(id, status as never, name as never));
    const byOverride = await call(samplePath(id), sampleInit(id));
    for (const response of [byPrefer, byOverride]) {
      expect(response.status).toBe(status);
      const body = await response.json();
      expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
      const expected = exampleBody(id, status as never, name as never) as Record<string, unknown>;
      // The example names its own resource; the answer names the one asked for (its field, or `_id` for an id).
      const exampleId =
        String(expected.path ?? "")
          .split("/")
          .at(-1) ?? "";
      const names = [...operationTable[id].path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
      const askedId = samples[names.at(-1) ?? ""] ?? "";
      if (status >= 400) {
        expect((body as ErrorDto).message).toBe(String(expected.message).split(exampleId).join(askedId));
        continue;
      }
      const [parameter, ...others] = names;
      if (parameter && parameter in expected) expected[parameter] = askedId;
      else if (parameter && others.length === 0 && parameter.endsWith("Id") && "_id" in expected)
        expected._id = askedId;
      // A subscriber the examples lack is the example under the id asked for, with an _id of its own.
      if (id === "patchSubscriber") expected._id = expect.not.stringMatching(String(expected._id));
      expect(body).toEqual(expected);
    }
  });

  it("send the documented headers with an answer (Retry-After on 429, a fresh X-Request-Id)", async () => {
    server.use(answer("listNotifications", 429));
    const response = await call("/v1/notifications");
    expect(response.headers.get("retry-after")).toBe("1");
    expect(response.headers.get("ratelimit-policy")).toMatch(/^\d+;w=\d+/);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const error = (await response.json()) as ErrorDto;
    expect(error.path).toBe("/v1/notifications");
  });

  it.each([
    [null, "Missing authorization header"],
    ["Bearer abc", 'Invalid authentication scheme: "Bearer"'],
    ["ApiKey", "Unauthorized"],
  ])("answer Authorization %j with 401 %j", async (authorization, message) => {
    const response = await call("/v2/subscribers", {}, authorization);
    expect(response.status).toBe(401);
    expect(((await response.json()) as ErrorDto).message).toBe(message);
  });

  it("check the request first, even when a test chose the answer", async () => {
    server.use(answer("getNotification", 404));
    expect((await call("/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6", {}, null)).status).toBe(401);
    expect((await call("/v1/notifications/not-an-id")).status).toBe(422);
    expect((await call("/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6")).status).toBe(404);
  });

  it.each([
    ["/v2/subscribers?limit=101", ["query.limit"]],
    ["/v2/subscribers?limit=ten&orderDirection=sideways", ["query.limit", "query.orderDirection"]],
    ["/v2/subscribers?includeCursor=maybe", ["query.includeCursor"]],
    ["/v2/subscribers?emial=a", ["query.emial"]],
    ["/v1/notifications?channels=email&channels=pigeon", ["query.channels[1]"]],
    ["/v1/notifications?page=-1&after=yesterday", ["query.page", "query.after"]],
    ["/v1/notifications/not-an-id", ["path.notificationId"]],
  ])("answer %s with 422 naming %j", async (path, keys) => {
    const response = await call(path);
    expect(response.status).toBe(422);
    const body = (await response.json()) as ValidationErrorDto;
    expect(body).toMatchObject({ statusCode: 422, error: "Unprocessable Entity", message: "Validation Error" });
    expect(Object.keys(body.errors).sort()).toEqual([...keys].sort());
    expect(validatorAt(ajv, "/components/schemas/ValidationErrorDto")(body)).toBe(true);
  });

  it("accept every valid parameter form: repeated array values, numbers, booleans, dates", async () => {
    const list = await call(
      "/v1/notifications?channels=email&channels=sms&severity=high&page=2&limit=50&after=2026-01-01T00:00:00Z",
    );
    expect(list.status).toBe(200);
    const search = await call("/v2/subscribers?limit=100&includeCursor=true&orderBy=createdAt&orderDirection=ASC");
    expect(search.status).toBe(200);
  });

  it("check PATCH bodies: unknown and mistyped fields are 422, a non-JSON body 415, malformed JSON 400", async () => {
    const patch = (body: string, contentType = "application/json") =>
      call("/v2/subscribers/user-1", { method: "PATCH", headers: { "content-type": contentType }, body });
    const unknown = await patch(JSON.stringify({ fristName: "typo", locale: 5 }));
    expect(unknown.status).toBe(422);
    const invalid = (await unknown.json()) as ValidationErrorDto;
    expect(invalid).toMatchObject({ statusCode: 422, error: "Unprocessable Entity", message: messages.validation });
    expect(invalid.errors["body.fristName"]?.messages).toEqual(["is not a known field"]);
    expect(invalid.errors["body.locale"]?.value).toBe(5);
    const notJson = await patch("{}", "text/plain");
    expect(notJson.status).toBe(415);
    expect(await notJson.json()).toMatchObject({
      statusCode: 415,
      error: "Unsupported Media Type",
      message: messages.notJson,
      path: "/v2/subscribers/user-1",
    });
    const malformed = await patch("{");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as ErrorDto).message).toBe(messages.malformedJson);
  });

  it("answer with a typed body of the test's own", async () => {
    const custom = { ...exampleBody("getNotification", 200), transactionId: "txn-from-this-test" };
    server.use(respond("getNotification", 200, custom));
    const { data } = await api.GET("/v1/notifications/{notificationId}", {
      params: { path: { notificationId: "66b7e1d0c3a2b1f0e9d8c7b6" } },
    });
    expect(data?.transactionId).toBe("txn-from-this-test");
  });

  it("refuse undeclared statuses, unknown example names and wrong bodies at compile time (and the first two at run time)", () => {
    // @ts-expect-error getNotification declares no 409
    expect(() => answer("getNotification", 409)).toThrow("getNotification does not declare status 409");
    // @ts-expect-error no such example
    expect(() => answer("listNotifications", 200, "NoSuchExample")).toThrow("has no 200 example named NoSuchExample");
    // @ts-expect-error an extra field is not part of the Notification schema
    respond("getNotification", 200, { ...exampleBody("getNotification", 200), extra: 1 });
    // @ts-expect-error 404's body is an ErrorDto, not a Notification
    respond("getNotification", 404, exampleBody("getNotification", 200));
  });

  it("intercept only the configured base URL when one is given", async () => {
    const scoped = setupServer(...createHandlers({ baseUrl: "https://api.example.com" }));
    server.close();
    scoped.listen({ onUnhandledRequest: "bypass" });
    try {
      const ok = await fetch("https://api.example.com/v2/subscribers", { headers: { authorization: "ApiKey k" } });
      expect(ok.status).toBe(200);
      const elsewhere = await fetch("http://127.0.0.1:9/v2/subscribers").catch((error: Error) => error);
      expect(elsewhere).toBeInstanceOf(Error);
    } finally {
      scoped.close();
      server.listen({ onUnhandledRequest: "error" });
    }
  });
});
