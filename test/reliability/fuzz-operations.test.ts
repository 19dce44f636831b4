/**
 * Every operation of the generated operation table, fuzzed from its spec alone: random path parameters, query,
 * body, Authorization and idempotency key. Coarser than the per-resource fuzzers beside it (they know which answer
 * each request should get); this one holds any operation, a new one included, to the contract: never a 5xx, only
 * declared statuses, JSON valid for the status. A scaffolded stub's 501 is the one undeclared answer allowed.
 */

import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { messages } from "@novu-query/express";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIds, operationTable } from "../../generated/operations.js";
import { runs as budget, deepFuzzRuns, fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { findOperation, type JsonObject, parametersOf, resolve } from "../support/spec.js";
import { authorization, idempotencyKey, maybeValid, queryFor } from "./arbitraries.js";
import { checkAnswer, fuzzHeaders, StatusTally } from "./fuzz-check.js";

/** A tenth of the per-resource fuzzers' runs (1,000 requests per operation at the deep setting). */
const runs = budget(deepFuzzRuns / 10);

function pathFor(id: (typeof operationIds)[number]): fc.Arbitrary<string> {
  const names = parametersOf(id).filter((parameter) => parameter.in === "path");
  const values = names.map((parameter) =>
    maybeValid(parameter.schema)
      .map(({ value }) => String(value))
      // "." and ".." never leave as a segment (URL parsers resolve them); an empty one is another route.
      .filter((value) => value !== "" && value !== "." && value !== ".."),
  );
  return fc
    .tuple(...values)
    .map((chosen) =>
      names.reduce(
        (path, parameter, index) => path.replace(`{${parameter.name}}`, encodeURIComponent(chosen[index] as string)),
        operationTable[id].path as string,
      ),
    );
}

function bodyFor(id: (typeof operationIds)[number]): fc.Arbitrary<unknown> {
  const requestBody = findOperation(id).operation.requestBody;
  if (!requestBody) return fc.constant(undefined);
  const media = (resolve<JsonObject>(requestBody).content as JsonObject)["application/json"] as JsonObject;
  return maybeValid(media.schema).map(({ value }) => value);
}

/** The fields the operation's request body schema declares. */
function bodyFields(id: (typeof operationIds)[number]): string[] {
  const requestBody = findOperation(id).operation.requestBody;
  if (!requestBody) return [];
  const media = (resolve<JsonObject>(requestBody).content as JsonObject)["application/json"] as JsonObject;
  return Object.keys((resolve<JsonObject>(media.schema).properties ?? {}) as JsonObject);
}

describe(`fuzzing every operation of the table from its spec (${runs} requests each)`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 20, notifications: 40 } });
  });
  afterAll(() => server?.close());

  it.for(operationIds)("%s never fails and answers only what it declares", { timeout: 600_000 }, async (id) => {
    const { method } = operationTable[id];
    const declaredBelow500 = operationTable[id].statuses.filter((status) => status < 500);
    // What the runs drew: however small the budget, every parameter and body field must have been sent.
    const drawn = { query: new Set<string>(), body: new Set<string>() };
    await fc.assert(
      fc.asyncProperty(
        pathFor(id),
        queryFor(id),
        bodyFor(id),
        authorization(server.production.apiKey),
        idempotencyKey(),
        async (path, query, body, auth, key) => {
          const search = new URLSearchParams(query.params).toString();
          for (const [name] of new URLSearchParams(query.params)) drawn.query.add(name);
          if (body && typeof body === "object" && !Array.isArray(body)) {
            for (const field of Object.keys(body)) drawn.body.add(field);
          }
          const response = await server.request(`${path}${search ? `?${search}` : ""}`, {
            key: null,
            method: method.toUpperCase(),
            headers: { ...fuzzHeaders(auth, key), ...(body !== undefined && { "content-type": "application/json" }) },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          if (response.status === 501) {
            // A stub that `npm run build` scaffolded: the request passed every check in front of the handler.
            expect(await response.json()).toMatchObject({ statusCode: 501, message: messages.notImplemented(id) });
            return;
          }
          await checkAnswer(id, response, declaredBelow500);
        },
      ),
      fuzzParameters(deepFuzzRuns / 10),
    );
    const neverSent = operationTable[id].queryParameters.filter((name) => !drawn.query.has(name));
    expect(neverSent, `query parameters no run of ${id} sent`).toEqual([]);
    expect(
      bodyFields(id).filter((field) => !drawn.body.has(field)),
      `body fields no run of ${id} sent`,
    ).toEqual([]);
  });
});

describe("fuzzing request bodies' Content-Encoding", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 20, notifications: 20 } });
  });
  afterAll(() => server?.close());

  // Round three found a 500 for a body its Content-Encoding does not decode.
  it("answers any encoding of any bytes from the contract: never 500", { timeout: 600_000 }, async () => {
    const subscriberId = server.production.subscribers.find((s) => !s.deleted)?.subscriber_id as string;
    const compress: Record<string, (bytes: Buffer) => Buffer> = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
      identity: (bytes) => bytes,
    };
    const tally = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("gzip", "deflate", "br", "identity", "GZIP", "x-unknown", "gzip, deflate"),
        fc.constantFrom("gzip", "deflate", "br", "identity"),
        fc.oneof(fc.constant('{"lastName":"Encoded"}'), fc.string({ maxLength: 40 })),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 })),
        async (declared, applied, json, cut) => {
          const encoded = (compress[applied] as (bytes: Buffer) => Buffer)(Buffer.from(json));
          const body = cut > 0 ? encoded.subarray(0, Math.max(0, encoded.length - cut)) : encoded;
          const response = await server.request(`/v2/subscribers/${encodeURIComponent(subscriberId)}`, {
            method: "PATCH",
            headers: { "content-type": "application/json", "content-encoding": declared },
            body: new Uint8Array(body),
          });
          tally.add(response.status);
          await checkAnswer("patchSubscriber", response, [200, 400, 415, 422]);
        },
      ),
      {
        ...fuzzParameters<[string, string, string, number]>(deepFuzzRuns / 20, undefined, 60),
        // One run of each status the tally expects, whatever the draws: a decodable body is about one draw in 22, so
        // 60 runs missed every 200 about once in 16 (the add-operation kit's copy failed so in CI, 2026-11-27).
        examples: [
          ["gzip", "gzip", '{"lastName":"Encoded"}', 0],
          ["gzip", "gzip", '{"lastName":"Encoded"}', 5],
          ["x-unknown", "identity", '{"lastName":"Encoded"}', 0],
        ],
      },
    );
    tally.expectSaw([200, 400, 415], "PATCH with a Content-Encoding");
  });
});
