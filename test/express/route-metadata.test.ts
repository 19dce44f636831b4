/**
 * routeCompiledOnce (D75) against express-openapi-validator's own `metadataMiddleware`, side by side: for the same
 * requests, under the same host app settings, the request carries the same `req.openapi` and `req.params`, and fails
 * with the same error; and after its first request it does so without running upstream's step.
 */
import type { OperationId } from "@novu-query/contract/operations";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { describe, expect, it } from "vitest";
import { inSequence } from "../../express/in-sequence.js";
import { specOfOperation } from "../../express/operation-spec.js";
import { routeCompiledOnce } from "../../express/route-metadata.js";

function upstreamMetadataStep(id: OperationId, validateResponses: boolean): RequestHandler {
  const steps = OpenApiValidator.middleware({
    apiSpec: specOfOperation(id) as never,
    useRequestUrl: true,
    validateRequests: false,
    validateResponses,
    validateSecurity: false,
    fileUploader: false,
  });
  const step = steps.find((one) => one.name === "metadataMiddleware");
  if (step === undefined) throw new Error("express-openapi-validator has no step named metadataMiddleware any more");
  return step;
}

interface Seen {
  status: number;
  body: unknown;
}

const echo: RequestHandler = (req, res) => {
  res.json({ openapi: (req as { openapi?: unknown }).openapi ?? null, params: req.params });
};
const echoError: ErrorRequestHandler = (error, _req, res, _next) => {
  res.status(500).json({ error: { name: error.name, status: error.status, message: error.message, path: error.path } });
};

/** An app with the step under `/api`, whose answers show what the step attached or the error it passed on. */
function appWith(step: RequestHandler, settings: string[]) {
  const app = express();
  for (const setting of settings) app.enable(setting);
  app.use("/api", inSequence([step, echo]));
  app.use(echoError);
  return app;
}

/**
 * What each request saw, its `req.openapi.serial` (a number each validator instance is given, so not the same in two
 * of them) read as whether it is the one the app's first request was given.
 */
async function requestAll(app: express.Express, urls: string[], method = () => "GET"): Promise<Seen[]> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  try {
    const seen: Seen[] = [];
    let firstSerial: unknown;
    for (const url of urls) {
      const response = await fetch(`http://127.0.0.1:${port}/api${url}`, { method: method() });
      const body = await response.json();
      if (body.openapi?.serial !== undefined) {
        firstSerial ??= body.openapi.serial;
        body.openapi.serial = body.openapi.serial === firstSerial ? "the first request's" : body.openapi.serial;
      }
      seen.push({ status: response.status, body });
    }
    return seen;
  } finally {
    server.close();
  }
}

const cases: Array<{ id: OperationId; first: string; urls: string[] }> = [
  {
    id: "getNotification",
    first: "/v1/notifications/first",
    urls: [
      "/v1/notifications/abc",
      "/v1/notifications/a%20b?x=1&y=%E2%82%AC",
      "/v1/notifications/%E2%82%AC",
      "/v1/notifications/a%2Fb",
      "/v1/notifications/%E0%A4%A",
      "/v1/notifications/abc/",
      "/V1/Notifications/abc",
      "/v1/notifications/a/b",
      "/v1/notifications/",
    ],
  },
  {
    id: "searchSubscribers",
    first: "/v2/subscribers",
    urls: ["/v2/subscribers?limit=3", "/v2/subscribers/", "/V2/subscribers", "/v2/subscribers/extra"],
  },
];

describe("routeCompiledOnce: upstream's metadata step, its route compiled once (D75)", () => {
  for (const { id, first, urls } of cases) {
    for (const settings of [
      [],
      ["strict routing"],
      ["case sensitive routing"],
      ["strict routing", "case sensitive routing"],
    ]) {
      for (const validateResponses of [false, true]) {
        it(`${id}, ${settings.join(" and ") || "default routing"}, responses ${validateResponses ? "" : "not "}validated: the same as upstream's`, async () => {
          const upstream = await requestAll(appWith(upstreamMetadataStep(id, validateResponses), settings), [
            first,
            ...urls,
          ]);
          let upstreamRuns = 0;
          const wrappedUpstream = upstreamMetadataStep(id, validateResponses);
          const counted: RequestHandler = (req, res, next) => {
            upstreamRuns += 1;
            return wrappedUpstream(req, res, next);
          };
          const ours = await requestAll(appWith(routeCompiledOnce(counted), settings), [first, ...urls]);
          expect(ours).toEqual(upstream);
          // The first request matched, and what upstream attached then serves every later request it matches.
          expect(upstream[0]?.status).toBe(200);
          const matchedLater = upstream.slice(1).filter((seen) => seen.status === 200).length;
          expect(matchedLater).toBeGreaterThan(0);
          expect(upstreamRuns).toBe(1 + urls.length - matchedLater);
        });
      }
    }
  }

  it("keeps each host app's routing options apart when one router is mounted in two apps", async () => {
    const urls = ["/v1/notifications/first", "/V1/Notifications/abc", "/v1/notifications/abc/"];
    const shared = routeCompiledOnce(upstreamMetadataStep("getNotification", false));
    for (const settings of [[], ["strict routing", "case sensitive routing"], []]) {
      const upstream = await requestAll(appWith(upstreamMetadataStep("getNotification", false), settings), urls);
      expect(await requestAll(appWith(shared, settings), urls), settings.join(" and ") || "default routing").toEqual(
        upstream,
      );
    }
  });

  it("runs upstream's step for a method other than the first request's: the same 405", async () => {
    const urls = ["/v1/notifications/first", "/v1/notifications/abc", "/v1/notifications/abc"];
    const methods = () => {
      const sequence = ["GET", "DELETE", "POST"];
      return () => sequence.shift() as string;
    };
    const upstream = await requestAll(appWith(upstreamMetadataStep("getNotification", false), []), urls, methods());
    let upstreamRuns = 0;
    const wrapped = upstreamMetadataStep("getNotification", false);
    const counted: RequestHandler = (req, res, next) => {
      upstreamRuns += 1;
      return wrapped(req, res, next);
    };
    const ours = await requestAll(appWith(routeCompiledOnce(counted), []), urls, methods());
    expect(ours).toEqual(upstream);
    expect(upstream.slice(1)).toMatchObject([
      { body: { error: { status: 405 } } },
      { body: { error: { status: 405 } } },
    ]);
    expect(upstreamRuns).toBe(3);
  });

  it("runs upstream's step until a request was attached an operation", async () => {
    let upstreamRuns = 0;
    const upstream = upstreamMetadataStep("getNotification", false);
    const counted: RequestHandler = (req, res, next) => {
      upstreamRuns += 1;
      return upstream(req, res, next);
    };
    const seen = await requestAll(appWith(routeCompiledOnce(counted), []), [
      "/v1/other",
      "/v1/notifications/%E0%A4%A",
      "/v1/notifications/one",
      "/v1/notifications/two",
    ]);
    expect(seen.map(({ status }) => status)).toEqual([500, 500, 200, 200]);
    expect(seen[0]?.body).toMatchObject({ error: { status: 404, message: "not found" } });
    expect(seen[1]?.body).toMatchObject({ error: { status: 400 } });
    expect(seen[3]?.body).toMatchObject({ params: { notificationId: "two" } });
    expect(upstreamRuns).toBe(3);
  });
});
