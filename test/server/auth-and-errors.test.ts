import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  ErrorDto,
  ListNotificationsResponse,
  SearchSubscribersResponse,
  Subscriber,
  ValidationErrorDto,
} from "../../generated/schema.js";
import { handlers } from "../../server/handlers/index.js";
import { drivers } from "../support/databases.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";

const isoMillis = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(drivers)("auth, isolation and errors (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver,
      handlers: {
        ...handlers,
        getNotification: async ({ path }, context) => {
          if (path.notificationId === "0000000000000000000000ff") throw new Error("database exploded: SELECT secret");
          return handlers.getNotification({ path } as never, context);
        },
      },
    });
  });
  afterAll(() => server?.close());

  it.each([
    [undefined, "Missing authorization header"],
    ["Bearer abc", 'Invalid authentication scheme: "Bearer"'],
    ["apikey abc", 'Invalid authentication scheme: "apikey"'],
    ["ApiKey", "Unauthorized"],
    ["ApiKey    ", "Unauthorized"],
    ["ApiKey 0123456789abcdef0123456789abcdef", "API Key not found"],
  ])("answers %s with 401 %s", async (authorization, message) => {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const response = await server.request("/v1/notifications?limit=1", { key: null, headers });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await json<ErrorDto>(response);
    expect(body).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message,
      timestamp: expect.stringMatching(isoMillis),
      path: "/v1/notifications?limit=1",
    });
  });

  it("checks the key before validating the request", async () => {
    const response = await server.request("/v2/subscribers?limit=5000", { key: null });
    expect(response.status).toBe(401);
  });

  it("serves health, spec and docs without a key", async () => {
    expect(await (await server.request("/healthz", { key: null })).json()).toEqual({ status: "ok" });
    const spec = await json<{ openapi: string }>(await server.request("/openapi.json", { key: null }));
    expect(spec.openapi).toBe("3.1.0");
    const docs = await server.request("/docs", { key: null });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("<html");
  });

  it("keeps each environment's records invisible to the other", async () => {
    const { production, development } = server;
    const theirs = development.notifications[0];
    if (!theirs) throw new Error("demo data has no development notification");
    const get = await server.request(`/v1/notifications/${theirs.id}`);
    expect(get.status).toBe(404);
    expect((await json<ErrorDto>(get)).message).toBe("Notification not found");

    const live = (env: typeof production) =>
      new Set(env.subscribers.filter((s) => !s.deleted).map((s) => s.subscriber_id));
    const onlyTheirs = development.subscribers.find((s) => !s.deleted && !live(production).has(s.subscriber_id));
    if (!onlyTheirs) throw new Error("demo data has no development-only subscriber");
    const search = await json<SearchSubscribersResponse>(
      await server.request(`/v2/subscribers?subscriberId=${onlyTheirs.subscriber_id}`),
    );
    expect(search).toMatchObject({ data: [], totalCount: 0 });
    const patch = await server.request(
      `/v2/subscribers/${onlyTheirs.subscriber_id}`,
      jsonPatch({ firstName: "Mallory" }),
    );
    expect(patch.status).toBe(404);

    // The same subscriberId in both environments: a patch with one key changes only that environment's record.
    const shared = development.subscribers.find((s) => !s.deleted && live(production).has(s.subscriber_id));
    if (!shared) throw new Error("demo data has no subscriberId used in both environments");
    const patched = await server.request(
      `/v2/subscribers/${shared.subscriber_id}`,
      jsonPatch({ lastName: "Prod-only" }),
    );
    expect((await json<Subscriber>(patched))._environmentId).toBe(production.environmentId);
    const theirCopy = await json<SearchSubscribersResponse>(
      await server.request(`/v2/subscribers?subscriberId=${shared.subscriber_id}`, { key: development.apiKey }),
    );
    expect(theirCopy.data[0]).toMatchObject({ _environmentId: development.environmentId, lastName: shared.last_name });

    const list = await json<ListNotificationsResponse>(
      await server.request("/v1/notifications?limit=50", { key: development.apiKey }),
    );
    expect(list.data.length).toBeGreaterThan(0);
    for (const item of list.data) expect(item._environmentId).toBe(development.environmentId);
  });

  it("answers unknown routes 404 and wrong methods 405, in the error shape", async () => {
    const unknown = await server.request("/v3/everything");
    expect(unknown.status).toBe(404);
    expect(await json<ErrorDto>(unknown)).toMatchObject({
      statusCode: 404,
      error: "Not Found",
      path: "/v3/everything",
    });
    const wrong = await server.request("/v1/notifications", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    expect(await json<ErrorDto>(wrong)).toMatchObject({ statusCode: 405, error: "Method Not Allowed" });
  });

  it("answers a comma-separated list with how to send it: the parameter repeated", async () => {
    for (const query of ["channels=sms,push", "channels=sms%2Cpush"]) {
      const response = await server.request(`/v1/notifications?${query}`);
      expect(response.status).toBe(422);
      const { errors } = await json<ValidationErrorDto>(response);
      expect(Object.values(errors)).toEqual([
        {
          messages: [
            "is a list: repeat the parameter for each value (channels=sms&channels=push), not comma-separated",
          ],
          value: "sms,push",
        },
      ]);
    }
    const reserved = await json<ValidationErrorDto>(await server.request("/v1/notifications?channels=sms;push"));
    expect(reserved.errors["query.channels"]?.messages).toEqual([
      "may not contain reserved characters (:/?#[]@!$&'()*+,;=) unless they are percent-encoded",
    ]);
  });

  it("reports every invalid input of a request in one 422, unknown parameters included", async () => {
    const response = await server.request("/v2/subscribers?limit=101&orderBy=email&colour=blue");
    expect(response.status).toBe(422);
    const body = await json<ValidationErrorDto>(response);
    expect(body.message).toBe("Validation Error");
    expect(Object.keys(body.errors).sort()).toEqual(["query.colour", "query.limit", "query.orderBy"]);
    expect(body.errors["query.limit"]).toEqual({ messages: ["Must be at most 100"], value: 101 });
    expect(body.errors["query.colour"]).toEqual({ messages: ["is not a known query parameter"], value: "blue" });
  });

  it("answers an unknown query parameter alone with 422 too", async () => {
    const response = await server.request("/v1/notifications?colour=blue");
    expect(response.status).toBe(422);
    expect((await json<ValidationErrorDto>(response)).errors).toEqual({
      "query.colour": { messages: ["is not a known query parameter"], value: "blue" },
    });
  });

  it("names path parameters `path.<name>` with the value received", async () => {
    const response = await server.request("/v1/notifications/not-an-id");
    expect(response.status).toBe(422);
    const body = await json<ValidationErrorDto>(response);
    expect(body.errors["path.notificationId"]?.value).toBe("not-an-id");
  });

  it("answers an unexpected failure with 500, an errorId that is in the log, and nothing of the cause", async () => {
    const response = await server.request("/v1/notifications/0000000000000000000000ff");
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toMatch(/exploded|SELECT|secret|at .*\.ts/);
    const body = JSON.parse(text) as ErrorDto;
    expect(body).toEqual({
      statusCode: 500,
      error: "Internal Server Error",
      message: "Internal server error, contact support and provide them with the errorId",
      timestamp: expect.stringMatching(isoMillis),
      path: "/v1/notifications/0000000000000000000000ff",
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const logged = server.logs.find((line) => body.errorId && line.includes(body.errorId));
    expect(logged).toContain("database exploded");
  });

  it("never logs API keys", async () => {
    await server.request("/v1/notifications?limit=1");
    const all = server.logs.join("\n");
    expect(all).toContain("/v1/notifications?limit=1");
    expect(all).not.toContain(server.production.apiKey);
  });

  it("returns a request id, echoing a well-formed one", async () => {
    const given = await server.request("/v1/notifications?limit=1", { headers: { "x-request-id": "trace-123" } });
    expect(given.headers.get("x-request-id")).toBe("trace-123");
    const generated = await server.request("/v1/notifications?limit=1");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
