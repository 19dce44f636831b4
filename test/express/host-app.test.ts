/**
 * The router inside an app of the host's own: mounted under `/api` (and deeper, under a route parameter), behind the
 * host's own `express.json()`, with the host's routes before and after it and the host's own error handler. The
 * conformance run passes against the prefix, and everything that is the host's stays the host's.
 */
import { type AppOptions, createRouter, type ErrorDto } from "@novu-query/express";
import express, { type ErrorRequestHandler, type Express } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../conformance/run.js";
import { type ModelService, startModelService } from "../support/model-service.js";

/** The host's own error format, for its own routes. */
const ownErrorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  res.status(error.status ?? 500).json({ app: "own error handler", message: error.message });
};

/** The last app `hostApp` made: the one the service below runs. */
let madeHostApp: Express | undefined;

function hostApp(options: AppOptions): Express {
  const app = express();
  madeHostApp = app;
  // The host parses JSON for every route, with a larger limit than the contract's 100 kB.
  app.use(express.json({ limit: "1mb" }));
  app.get("/api/health", (_req, res) => res.json({ app: "host", ok: true }));
  // Novu's own route beside GET /v1/notifications/{notificationId}: declared before the router, it wins.
  app.get("/api/v1/notifications/stats", (_req, res) => res.json({ app: "host", stats: true }));
  const contract = createRouter({ ...options, passThrough: ["GET /v1/notifications/summary"] });
  app.use("/api", contract);
  app.use("/api", contract.errorHandler);
  // After the router: answered only because the router passes this one through; `/shadowed` it claims.
  app.get("/api/v1/notifications/summary", (_req, res) => res.json({ app: "host", summary: true }));
  app.get("/api/v1/notifications/shadowed", (_req, res) => res.json({ app: "host", shadowed: false }));
  app.post("/api/echo", (req, res) => res.json({ app: "host", echoed: req.body }));
  app.options("/api/v2/subscribers", (_req, res) => res.set("Allow", "GET, OPTIONS").status(204).end());
  app.get("/api/boom", () => {
    throw new Error("boom");
  });
  app.use(ownErrorHandler);
  return app;
}

/** The router three levels down, below a route parameter of the host's. */
function deepHostApp(options: AppOptions): Express {
  const app = express();
  const tenants = express.Router();
  tenants.use("/notify", createRouter(options));
  app.use("/tenants/:tenant", tenants);
  app.use(ownErrorHandler);
  return app;
}

let service: ModelService;
let deep: ModelService;
const origin = () => service.baseUrl.replace(/\/api$/, "");

beforeAll(async () => {
  service = await startModelService({ host: { app: hostApp, basePath: "/api" } });
  deep = await startModelService({ host: { app: deepHostApp, basePath: "/tenants/acme/notify" } });
});
afterAll(async () => {
  await service?.close();
  await deep?.close();
});

function request(path: string, init: RequestInit & { key?: string | null } = {}) {
  const { key = service.apiKey, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key !== null) headers.set("authorization", `ApiKey ${key}`);
  return fetch(`${origin()}${path}`, { ...rest, headers });
}

describe("the router mounted under /api in a host app", () => {
  it("passes every conformance rule against the prefix, with two keys", async () => {
    const { baseUrl, apiKey, otherApiKey } = service;
    const report = await runConformance({ baseUrl, apiKey, otherApiKey, requestsPerSecond: 0 });
    expect(report.results.filter((r) => !r.passed && !r.todo && !r.skipped).map((r) => `${r.id}: ${r.reason}`)).toEqual(
      [],
    );
    expect(report.skipped).toBe(0);
  });

  it("answers errors with the whole URL as requested, prefix included", async () => {
    const response = await request("/api/v2/subscribers?limit=101");
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ statusCode: 422, path: "/api/v2/subscribers?limit=101" });
  });

  it("keeps the contract's 400 and 413 on its routes when the host parsed the body first", async () => {
    const patch = (body: string) =>
      request("/api/v2/subscribers/sub-1", { method: "PATCH", headers: { "content-type": "application/json" }, body });
    const malformed = await patch("{");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      statusCode: 400,
      error: "Bad Request",
      message: "Malformed JSON in request body",
      path: "/api/v2/subscribers/sub-1",
    });
    // Within the host's 1 MB, past the contract's 100 kB: measured by its Content-Length.
    const large = await patch(JSON.stringify({ firstName: "x".repeat(200_000) }));
    expect(large.status).toBe(413);
    expect(((await large.json()) as ErrorDto).message).toBe("Request body is larger than the limit of 100kb");
    // Past the host's own limit too: the host's parser refused it, the contract's answer says so.
    const huge = await patch(JSON.stringify({ firstName: "x".repeat(1_100_000) }));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ statusCode: 413, error: "Payload Too Large" });
  });

  it("leaves the host's routes, before and after the router, and its error format elsewhere untouched", async () => {
    expect(await (await request("/api/health", { key: null })).json()).toEqual({ app: "host", ok: true });
    expect(await (await request("/api/v1/notifications/stats")).json()).toEqual({ app: "host", stats: true });
    const echoed = await request("/api/echo", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(await echoed.json()).toEqual({ app: "host", echoed: { hello: "world" } });
    const malformed = await request("/api/echo", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ app: "own error handler" });
    const boom = await request("/api/boom", { key: null });
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ app: "own error handler", message: "boom" });
  });

  it("leaves a host route declared after it to the host when it is in passThrough, and only then", async () => {
    expect(await (await request("/api/v1/notifications/summary")).json()).toEqual({ app: "host", summary: true });
    const shadowed = await request("/api/v1/notifications/shadowed");
    expect(shadowed.status).toBe(422);
    expect(Object.keys(((await shadowed.json()) as { errors: object }).errors)).toEqual(["path.notificationId"]);
    const quiet = { info() {}, warn() {}, error() {} };
    const options = { handlers: {}, authenticate: () => undefined, services: () => ({}) as never, logger: quiet };
    expect(() => createRouter({ ...options, passThrough: ["/v1/stats"] })).toThrow(
      'passThrough: "/v1/stats" is not "METHOD /path"',
    );
  });

  it("installs nothing on the host app: no parameter handlers for the contract's path parameters (D74)", async () => {
    // Requests of both operations with a path parameter have run through the router by now, and one more does here.
    expect((await request("/api/v1/notifications/0123456789abcdef01234567")).status).toBe(404);
    const params = (madeHostApp as unknown as { router: { params: Record<string, unknown> } }).router.params;
    expect(Object.keys(params)).toEqual([]);
  });

  it("passes on what is not a contract operation by method and path: OPTIONS, HEAD, DELETE are the host's", async () => {
    const options = await request("/api/v2/subscribers", { method: "OPTIONS", key: null });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, OPTIONS");
    // No route of the host's answers these: Express's own 404, not the contract's 401 or 405.
    for (const method of ["DELETE", "PUT"]) {
      const response = await request("/api/v2/subscribers", { method, key: null });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    }
  });
});

describe("the router three levels down, below the host's route parameter", () => {
  it("passes the shape rules and answers with the whole URL", async () => {
    const { baseUrl, apiKey } = deep;
    const report = await runConformance({ baseUrl, apiKey, level: "shape", requestsPerSecond: 0 });
    expect(report.results.filter((r) => !r.passed && !r.todo && !r.skipped).map((r) => `${r.id}: ${r.reason}`)).toEqual(
      [],
    );
    const response = await fetch(`${baseUrl}/v1/notifications/not-an-id`, {
      headers: { authorization: `ApiKey ${apiKey}` },
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ path: "/tenants/acme/notify/v1/notifications/not-an-id" });
  });
});
