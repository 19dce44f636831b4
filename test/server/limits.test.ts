import { once } from "node:events";
import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { createHttpServer } from "@novu-query/express";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorDto } from "../../generated/schema.js";
import { createServerApp } from "../../server/app.js";
import { loadConfig } from "../../server/config.js";
import { handlers } from "../../server/handlers/index.js";
import { drivers, onCitus } from "../support/databases.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";

/** Sends raw bytes and returns everything the server answered before closing. */
function rawExchange(baseUrl: string, chunks: string[], pauseMs = 0): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    socket.on("data", (data) => {
      answer += String(data);
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

/** The handler, answering only after `ms` milliseconds. */
function slowly<Args extends unknown[], Answer>(
  handler: (...args: Args) => Promise<Answer>,
  ms: number,
): (...args: Args) => Promise<Answer> {
  return async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return handler(...args);
  };
}

function bodyOf(rawAnswer: string): ErrorDto {
  return JSON.parse(rawAnswer.slice(rawAnswer.indexOf("\r\n\r\n") + 4)) as ErrorDto;
}

// The describes skipped on Citus use PGlite or no database: they ran in `npm test`, and have nothing to run on Citus.
describe.skipIf(onCitus)("limits, in the error shape", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 20, notifications: 20 },
      config: { requestTimeoutMs: 600, maxHeaderBytes: 8192, maxUrlLength: 2048 },
      handlers: {
        ...handlers,
        getNotification: slowly(handlers.getNotification, 1500),
        patchSubscriber: slowly(handlers.patchSubscriber, 1000),
      },
    });
  });
  afterAll(() => server?.close());

  it("answers a URL over the limit with 414", async () => {
    const response = await server.request(`/v2/subscribers?email=${"a".repeat(3000)}`);
    expect(response.status).toBe(414);
    expect(await json<ErrorDto>(response)).toMatchObject({ statusCode: 414, error: "URI Too Long" });
  });

  it("answers request headers over the limit with 431", async () => {
    const answer = await rawExchange(server.baseUrl, [
      `GET /v1/notifications HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(10_000)}\r\n\r\n`,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(answer)).toMatchObject({ statusCode: 431, error: "Request Header Fields Too Large" });
  });

  it("answers bytes that are not HTTP with 400", async () => {
    const answer = await rawExchange(server.baseUrl, ["HELLO THERE\r\n\r\n"]);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer).message).toBe("Malformed HTTP request");
  });

  it("answers a request that arrives too slowly with 408", async () => {
    const answer = await rawExchange(
      server.baseUrl,
      [
        `PATCH /v2/subscribers/x HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${server.production.apiKey}\r\n` +
          "Content-Type: application/json\r\nContent-Length: 20\r\n\r\n",
        '{"first',
        'Name":',
      ],
      700,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(answer).statusCode).toBe(408);
  });

  it("answers 503 with Retry-After when the answer takes longer than the limit", async () => {
    const response = await server.request("/v1/notifications/66b7e1d0c3a2b1f0e9d8c7b6");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect((await json<ErrorDto>(response)).message).toBe("The request took longer than 600 ms; please retry");
  });

  it("says a PATCH under way may yet be applied, and it is; a retry with its key gets its answer", async () => {
    const subscriber = server.production.subscribers.find((s) => !s.deleted) as { subscriber_id: string };
    const path = `/v2/subscribers/${subscriber.subscriber_id}`;
    const patch = () => server.request(path, jsonPatch({ lastName: "Slow" }, { "idempotency-key": "slow-patch" }));
    const timedOut = await patch();
    expect(timedOut.status).toBe(503);
    expect(timedOut.headers.get("retry-after")).toBe("1");
    expect((await json<ErrorDto>(timedOut)).message).toBe(
      "The request took longer than 600 ms and is still being processed: it may yet be applied. Retry with the same idempotency-key to get its answer",
    );
    // Retried as a client does: after its Retry-After, again while the first is still under way (409), or when the
    // connection failed. On a loaded machine the first may still run, or its kept-alive connection close as the
    // retry is sent ("other side closed", CI at stop 55); the key makes each retry safe.
    let retried: Response | undefined;
    for (let attempt = 0; attempt < 20 && (retried === undefined || retried.status === 409); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, attempt === 0 ? 1200 : 500));
      retried = await patch().catch((error: unknown) => {
        if (error instanceof TypeError) return undefined;
        throw error;
      });
    }
    if (!retried) throw new Error("every retry failed");
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotency-replay")).toBe("true");
    expect((await json<{ lastName: string }>(retried)).lastName).toBe("Slow");
  });

  it("answers an HTTP/1.1 request without Host 400 in the error shape", async () => {
    const answer = await rawExchange(server.baseUrl, ["GET /v1/notifications HTTP/1.1\r\nConnection: close\r\n\r\n"]);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer)).toMatchObject({ statusCode: 400, message: "An HTTP/1.1 request must have a Host header" });
  });

  it("keeps a key sent in the query string out of the error body and the request log", async () => {
    const secret = "0123456789abcdef0123456789abcdef";
    const response = await server.request(`/v1/notifications?apiKey=${secret}&limit=1`);
    expect(response.status).toBe(422);
    const text = await response.text();
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({
      path: "/v1/notifications?apiKey=[redacted]&limit=1",
      errors: { "query.apiKey": { value: "[redacted]" } },
    });
    expect(server.logs.join("")).not.toContain(secret);
  });

  it("sends the security headers of a JSON API, and a CSP that lets the docs run", async () => {
    const response = await server.request("/v1/notifications?limit=1");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(response.headers.get("ratelimit-limit")).toBeNull();
    const docs = await server.request("/docs", { key: null });
    expect(docs.headers.get("content-security-policy")).toContain("script-src 'self' 'unsafe-inline'");
  });
});

const bucketPlaces = [
  ["pglite", "memory"],
  ["pglite", "database"],
  ...drivers.filter((driver) => driver === "postgres").map((driver) => [driver, "database"] as const),
] as const;

describe.each(bucketPlaces)("rate limiting per API key (RATE_LIMIT_PER_MINUTE, %s, buckets in %s)", (driver, place) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver,
      demo: { subscribers: 10, notifications: 10 },
      // A token every ten seconds: four requests on a loaded machine (CI's second Node, PGlite's buckets in the
      // database) once took over a second, and at 60 a minute a token came back before the fourth.
      config: { rateLimitPerMinute: 6, rateLimitBurst: 3, rateLimitStore: place },
    });
  });
  afterAll(() => server?.close());

  it("lets a burst through with RateLimit headers, then answers 429 with Retry-After", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await server.request("/v1/notifications?limit=1"));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0", "0"]);
    expect(answers[0]?.headers.get("ratelimit-limit")).toBe("3");
    expect(answers[0]?.headers.get("ratelimit-policy")).toBe(
      '6;w=60;burst=3;comment="token bucket";category="global";cost="single";serviceLevel="unlimited"',
    );
    const limited = answers[3] as Response;
    // The seconds until the next token: under ten, however long the four requests took.
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(await json<ErrorDto>(limited)).toMatchObject({ statusCode: 429, message: "API rate limit exceeded" });
  });

  it("puts subscriber operations in Novu's configuration category", async () => {
    const other = await server.request("/v2/subscribers?limit=1", { key: server.development.apiKey });
    expect(other.headers.get("ratelimit-policy")).toBe(
      '6;w=60;burst=3;comment="token bucket";category="configuration";cost="single";serviceLevel="unlimited"',
    );
  });

  it("counts each key on its own", async () => {
    const other = await server.request("/v1/notifications?limit=1", { key: server.development.apiKey });
    expect(other.status).toBe(200);
  });
});

describe.each(drivers)("rate limiting across instances on one database (%s)", (driver) => {
  let server: TestServer;
  let second: Server;
  let secondUrl: string;
  beforeAll(async () => {
    // A token a minute: however slowly a loaded machine sends the requests below, none is refilled during a test.
    const config = { rateLimitPerMinute: 1, rateLimitBurst: 4, rateLimitStore: "database" as const };
    server = await startTestServer({ driver, demo: { subscribers: 5, notifications: 5 }, config });
    // A second API instance: its own app, process state and port, the same database.
    const secondConfig = { ...loadConfig({}), apiKeyCacheSeconds: 0, ...config };
    const app = createServerApp({
      store: server.store,
      handlers,
      logger: pino({ level: "silent" }),
      config: secondConfig,
    });
    second = createHttpServer(app, secondConfig, pino({ level: "silent" })).listen(0, "127.0.0.1");
    await once(second, "listening");
    secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    second?.closeAllConnections();
    await new Promise((resolve) => second?.close(resolve));
    await server?.close();
  });

  it("gives a key its burst once, whichever instance answers", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const url = `${i % 2 === 0 ? server.baseUrl : secondUrl}/v1/notifications?limit=1`;
      const response = await fetch(url, { headers: { authorization: `ApiKey ${server.production.apiKey}` } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
  });

  it("takes each token once when instances ask at the same moment", async () => {
    const key = server.development.apiKey;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${i % 2 === 0 ? server.baseUrl : secondUrl}/v1/notifications?limit=1`, {
          headers: { authorization: `ApiKey ${key}` },
        }),
      ),
    );
    expect(answers.filter((response) => response.status === 200)).toHaveLength(4);
    expect(answers.filter((response) => response.status === 429)).toHaveLength(8);
  });
});

describe.skipIf(onCitus)("CORS (CORS_ORIGINS)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 5, notifications: 5 },
      config: { corsOrigins: ["https://app.example.com"] },
    });
  });
  afterAll(() => server?.close());

  it("answers an allowed origin's preflight and exposes the API's headers", async () => {
    const preflight = await server.request("/v2/subscribers/user-1", {
      method: "OPTIONS",
      key: null,
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization,content-type,idempotency-key,prefer",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Prefer");
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("idempotency-key");
    const real = await server.request("/v1/notifications?limit=1", { headers: { origin: "https://app.example.com" } });
    expect(real.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    expect(real.headers.get("access-control-expose-headers")).toContain("Link");
  });

  it("gives other origins no CORS headers", async () => {
    const response = await server.request("/v1/notifications?limit=1", { headers: { origin: "https://evil.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe.skipIf(onCitus)("the answer timeout, for a request still waiting for its turn", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 20, notifications: 20 },
      config: { requestTimeoutMs: 600, maxInFlight: 1, maxQueued: 5, queueTimeoutMs: 10_000 },
      handlers: {
        ...handlers,
        patchSubscriber: slowly(handlers.patchSubscriber, 1000),
      },
    });
  });
  afterAll(() => server?.close());

  it("says please retry, and never starts it: nothing is applied", async () => {
    const [first, second] = server.production.subscribers.filter((s) => !s.deleted) as { subscriber_id: string }[];
    const path = (s: { subscriber_id: string } | undefined) => `/v2/subscribers/${s?.subscriber_id}`;
    const running = server.request(path(first), jsonPatch({ lastName: "First" }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = await server.request(path(second), jsonPatch({ lastName: "NeverApplied" }));
    expect(waiting.status).toBe(503);
    expect((await json<ErrorDto>(waiting)).message).toBe("The request took longer than 600 ms; please retry");
    await running;
    // Its turn came after the answer: it was dropped, not run.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Read from the store: an HTTP read would itself be held to the 600 ms timeout under test.
    const row = await server.store.subscribers.findBySubscriberId(
      server.production.environmentId,
      `${second?.subscriber_id}`,
    );
    expect(row?.lastName, "the subscriber is there, unchanged").toBeDefined();
    expect(row?.lastName).not.toBe("NeverApplied");
  });
});
