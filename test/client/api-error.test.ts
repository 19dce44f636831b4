/**
 * The typed errors of the client (contract/api-error.ts) and the retry policy of `/react-query`, met the way an app
 * meets them: the typed client over MSW, answering as the contract does (the static and stateful handlers) and as
 * what stands in front of an API does (a gateway's HTML 502, an undeclared status, a dropped connection).
 */
import { MutationObserver, QueryClient, QueryObserver } from "@tanstack/react-query";
import { delay, HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ApiRequestError,
  allSubscribers,
  ContractError,
  createClient,
  dataOrThrow,
  NetworkError,
  retryAfterSeconds,
  UnexpectedAnswerError,
} from "../../contract/index.js";
import { answer, handlers } from "../../contract/msw.js";
import { createQueries, isRetryable, retryPolicy } from "../../contract/react-query.js";
import { failure } from "../support/failure.js";

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const api = createClient({ baseUrl: "https://api.example.com", apiKey: "test" });
const getNotification = () =>
  dataOrThrow(
    "getNotification",
    api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId: "66b7e1d0c3a2b1f0e9d8c7b6" } } }),
  );

describe("the error of a call", () => {
  it("is the contract's error, narrowed by statusCode, with the answer's headers", async () => {
    const error = await failure(
      dataOrThrow("searchSubscribers", api.GET("/v2/subscribers", { params: { query: { limit: 500 } } })),
    );
    expect(error).toBeInstanceOf(ContractError);
    expect(error).toBeInstanceOf(ApiRequestError);
    const typed = error as ContractError;
    expect(typed).toMatchObject({ kind: "contract", status: 422, statusCode: 422, operationId: "searchSubscribers" });
    expect(typed.body).toMatchObject({ statusCode: 422, errors: { "query.limit": { value: "500" } } });
    expect(typed.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typed.message).toBe("422 Unprocessable Entity: Validation Error");
  });

  it("reads Retry-After and the RateLimit headers of a 429", async () => {
    server.use(answer("getNotification", 429));
    const error = (await failure(getNotification())) as ContractError;
    expect(error.statusCode).toBe(429);
    expect(error.retryAfter).toBe(Number(error.headers.get("retry-after")));
    expect(error.retryAfter).toBeGreaterThan(0);
    expect(error.rateLimit).toEqual({
      limit: Number(error.headers.get("ratelimit-limit")),
      remaining: 0,
      reset: Number(error.headers.get("ratelimit-reset")),
      policy: error.headers.get("ratelimit-policy"),
    });
  });

  it("is an unexpected answer for a gateway's HTML page, with its text", async () => {
    server.use(
      http.get(
        "*/v1/notifications/:id",
        () => new HttpResponse("<html>Bad gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } }),
      ),
    );
    const error = await failure(getNotification());
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect(error).toMatchObject({ kind: "unexpected", status: 502, body: "<html>Bad gateway</html>" });
    expect((error as UnexpectedAnswerError).statusCode).toBeUndefined();
    expect((error as Error).message).toBe("HTTP 502: an answer that is not the contract's (text/html)");
  });

  it("is an unexpected answer for a status the operation does not declare, or a body of another shape", async () => {
    const body = { statusCode: 402, error: "Payment Required", message: "no", timestamp: "", path: "/" };
    server.use(http.get("*/v1/notifications/:id", () => HttpResponse.json(body, { status: 402 })));
    expect(await failure(getNotification())).toMatchObject({ kind: "unexpected", status: 402 });
    server.use(http.get("*/v1/notifications/:id", () => HttpResponse.json({ error: "upstream" }, { status: 404 })));
    expect(await failure(getNotification())).toMatchObject({
      kind: "unexpected",
      status: 404,
      body: '{"error":"upstream"}',
    });
    const noErrors = { statusCode: 422, error: "Unprocessable Entity", message: "x", timestamp: "", path: "/" };
    server.use(http.get("*/v1/notifications/:id", () => HttpResponse.json(noErrors, { status: 422 })));
    expect(await failure(getNotification())).toMatchObject({ kind: "unexpected", status: 422 });
  });

  it("is a network error when no answer comes, and a cancelled request rejects with its abort", async () => {
    server.use(http.get("*/v1/notifications/:id", () => HttpResponse.error()));
    const error = await failure(getNotification());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: "network", status: undefined, operationId: "getNotification" });
    expect((error as Error).cause).toBeInstanceOf(Error);

    server.use(
      http.get("*/v1/notifications/:id", async () => {
        await delay("infinite");
        return HttpResponse.json({});
      }),
    );
    const controller = new AbortController();
    const call = dataOrThrow(
      "getNotification",
      api.GET("/v1/notifications/{notificationId}", {
        params: { path: { notificationId: "x" } },
        signal: controller.signal,
      }),
    );
    controller.abort();
    expect(await failure(call)).toMatchObject({ name: "AbortError" });
  });

  it("is what the page iterators throw", async () => {
    const error = await failure(allSubscribers(api, { limit: 500 }).next());
    expect(error).toMatchObject({ kind: "contract", statusCode: 422, operationId: "searchSubscribers" });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-25T10:00:00Z");
    const at = (value: string) => retryAfterSeconds(new Headers({ "Retry-After": value }), now);
    expect(at("7")).toBe(7);
    expect(at("Wed, 25 Nov 2026 10:00:30 GMT")).toBe(30);
    expect(at("Wed, 25 Nov 2026 09:00:00 GMT")).toBe(0);
    expect(at("soon")).toBeUndefined();
    expect(retryAfterSeconds(new Headers(), now)).toBeUndefined();
  });
});

describe("retryPolicy", () => {
  const contract = (status: number, retryAfter?: number) =>
    new ContractError(
      { statusCode: status, error: "x", message: "x" },
      new Headers(retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) }),
    );

  it("retries no answer, a 429 and a 5xx; never another 4xx, nor an error that is not the API's", () => {
    const { retry } = retryPolicy({ retries: 2 });
    expect([429, 500, 503].map((status) => retry(0, contract(status)))).toEqual([true, true, true]);
    expect([400, 401, 404, 409, 413, 422].map((status) => retry(0, contract(status)))).toEqual(Array(6).fill(false));
    expect(retry(0, new NetworkError(new TypeError("fetch failed")))).toBe(true);
    expect(retry(0, new UnexpectedAnswerError(502, "<html>", new Headers()))).toBe(true);
    expect(retry(0, new UnexpectedAnswerError(404, "<html>", new Headers()))).toBe(false);
    expect(retry(0, new TypeError("x is undefined"))).toBe(false);
    expect([retry(1, contract(503)), retry(2, contract(503))]).toEqual([true, false]);
    expect(isRetryable(contract(429))).toBe(true);
  });

  it("waits what Retry-After asks, else doubles from the base, never longer than the cap", () => {
    const { retryDelay } = retryPolicy({ baseDelayMs: 100, maxDelayMs: 5_000 });
    expect(retryDelay(0, contract(429, 3))).toBe(3_000);
    expect(retryDelay(0, contract(503, 60))).toBe(5_000);
    expect([0, 1, 2].map((count) => retryDelay(count, contract(500)))).toEqual([100, 200, 400]);
    expect(retryDelay(10, new NetworkError("x"))).toBe(5_000);
  });
});

describe("the /react-query options with retryPolicy", () => {
  const queries = createQueries(api);

  it("retry a PATCH with the idempotency key of its first try, after the Retry-After the 503 asked", async () => {
    const keys: string[] = [];
    const started: number[] = [];
    server.use(
      http.patch("*/v2/subscribers/:id", ({ request }) => {
        keys.push(request.headers.get("idempotency-key") ?? "");
        started.push(Date.now());
        if (keys.length === 1) {
          return HttpResponse.json(
            { statusCode: 503, error: "Service Unavailable", message: "busy", timestamp: "", path: "/" },
            { status: 503, headers: { "Retry-After": "1" } },
          );
        }
        return undefined; // on to the static handlers: the example subscriber
      }),
    );
    const client = new QueryClient();
    const observer = new MutationObserver(client, { ...queries.patchSubscriber(), ...retryPolicy() });
    const subscriber = await observer.mutate({ subscriberId: "user-1", body: { firstName: "Ada" } });
    expect(subscriber.subscriberId).toBe("user-1");
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect((started[1] as number) - (started[0] as number)).toBeGreaterThanOrEqual(950);
    await observer.mutate({ subscriberId: "user-1", body: { firstName: "Ada" } });
    expect(keys[2]).not.toBe(keys[0]);
  });

  it("never retry a 422, and carry it as the query's typed error", async () => {
    let calls = 0;
    server.use(
      http.get("*/v1/notifications/:id", () => {
        calls += 1;
        return undefined;
      }),
      answer("getNotification", 422),
    );
    const client = new QueryClient({ defaultOptions: { queries: retryPolicy() } });
    const observer = new QueryObserver(client, queries.notification("not-an-id"));
    const result = await observer.refetch();
    expect(calls).toBe(1);
    expect(result.error).toMatchObject({ kind: "contract", statusCode: 422 });
    expect(result.error?.statusCode === 422 && Object.keys(result.error.body.errors)).toEqual(["path.notificationId"]);
  });
});
