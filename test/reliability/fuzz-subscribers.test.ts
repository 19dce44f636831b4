import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deepFuzzRuns, fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";
import {
  type AuthCase,
  authorization,
  type Generated,
  goodAuthorization,
  idempotencyKey,
  noAuthorization,
  noIdempotencyKey,
  patchBody,
  type QueryRequest,
  queryExamples,
  queryFor,
} from "./arbitraries.js";
import { allowedStatuses, checkAnswer, fuzzHeaders, fuzzRuns, StatusTally } from "./fuzz-check.js";

/** A subscriberId as the PATCH's path segment, and whether the server can take it. */
type Segment = { segment: string; valid: boolean };
/** A PATCH's body as sent, its Content-Type, and whether the server takes it. */
type RawBody = { text: string; type: string; valid: boolean };

describe(`fuzzing the subscriber operations (${fuzzRuns} requests each)`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 120, notifications: 20 } });
  });
  afterAll(() => server?.close());

  it("GET /v2/subscribers never fails, answers as declared, and matches filters literally", async () => {
    // The 400: both cursors.
    const [first, second] = server.production.subscribers;
    const examples = queryExamples(server.production.apiKey, {
      after: first?.id as string,
      before: second?.id as string,
    });
    const tally = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        queryFor("searchSubscribers"),
        authorization(server.production.apiKey),
        idempotencyKey(),
        async (query, auth, key) => {
          const headers = fuzzHeaders(auth, key);
          const response = await server.request(`/v2/subscribers?${new URLSearchParams(query.params)}`, {
            key: null,
            headers,
          });
          const bothCursors = query.values.after !== undefined && query.values.before !== undefined;
          const allowed = allowedStatuses(
            { authValid: auth.valid, keyValid: key.valid, inputValid: query.valid },
            bothCursors ? [400] : [200],
          );
          const { status, body } = await checkAnswer("searchSubscribers", response, allowed);
          tally.add(status);
          if (status !== 200) return;
          const rows = body.data as Record<string, string | null>[];
          for (const [param, field] of [
            ["email", "email"],
            ["phone", "phone"],
          ] as const) {
            const needle = query.values[param];
            if (typeof needle === "string") {
              for (const row of rows) expect((row[field] ?? "").toLowerCase()).toContain(needle.toLowerCase());
            }
          }
          if (typeof query.values.name === "string") {
            for (const row of rows)
              expect(`${row.firstName ?? ""} ${row.lastName ?? ""}`.toLowerCase()).toContain(
                query.values.name.toLowerCase(),
              );
          }
          if (typeof query.values.subscriberId === "string")
            for (const row of rows) expect(row.subscriberId).toBe(query.values.subscriberId);
        },
      ),
      {
        ...fuzzParameters<QueryRequest>(deepFuzzRuns),
        // One request of each kind the tally expects, whatever the draws (fuzz-check.ts, StatusTally).
        examples,
      },
    );
    tally.expectSaw([200, 400, 401, 422], "GET /v2/subscribers");
  }, 1_200_000);

  it("PATCH /v2/subscribers/{subscriberId} never fails and answers as declared", async () => {
    const known = server.production.subscribers.filter((s) => !s.deleted).map((s) => s.subscriber_id);
    // "." and ".." are not sendable as a path segment: URL parsers resolve them before the request leaves.
    const sendable = (id: string) => id !== "." && id !== "..";
    // The path segment as sent, and whether the server can take it: at most 256 characters, no U+0000, UTF-8.
    const segment = (id: string): Segment => ({
      segment: encodeURIComponent(id),
      valid: id.length <= 256 && !id.includes("\0"),
    });
    const subscriberId = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...known).map(segment) },
      {
        weight: 1,
        arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: "binary" }).filter(sendable).map(segment),
      },
      { weight: 1, arbitrary: fc.constantFrom("%", "_", "'", "a/b", "...", "😀", " ", "x".repeat(300)).map(segment) },
      { weight: 1, arbitrary: fc.constantFrom("a\0b", "\0", "\u0085\u0001").map(segment) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom("%ED%A0%80", "%C0%AF", "%FF", "a%E2%82")
          .map((raw) => ({ segment: raw, valid: false })),
      },
    );
    const rawBody = fc.oneof(
      {
        weight: 10,
        arbitrary: patchBody().map((body) => ({
          text: JSON.stringify(body.value),
          type: "application/json",
          valid: body.valid,
        })),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom("{", "[1,", "nul", '{"a":}', "[]", "1", '"x"', "null", "")
          .map((text) => ({ text, type: "application/json", valid: false })),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(
            "text/plain",
            "application/xml",
            "multipart/form-data; boundary=x",
            "application/x-www-form-urlencoded",
          )
          .map((type) => ({ text: "firstName=Ada", type, valid: false })),
      },
    );
    const good = goodAuthorization(server.production.apiKey);
    const json = (value: unknown): RawBody => ({
      text: JSON.stringify(value),
      type: "application/json",
      valid: true,
    });
    const someone = segment(known[0] as string);
    const examples: [Segment, RawBody, AuthCase, Generated<string | undefined>][] = [
      [someone, json({ data: { fuzz: "example" } }), good, noIdempotencyKey],
      [segment("nobody-has-this-id"), json({ data: { fuzz: "example" } }), good, noIdempotencyKey],
      [someone, { text: "{", type: "application/json", valid: false }, good, noIdempotencyKey],
      [someone, json({ firstName: "Ada" }), noAuthorization, noIdempotencyKey],
      [someone, { text: "firstName=Ada", type: "text/plain", valid: false }, good, noIdempotencyKey],
      [someone, { ...json({ firstName: 5 }), valid: false }, good, noIdempotencyKey],
    ];
    const tally = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        subscriberId,
        rawBody,
        authorization(server.production.apiKey),
        idempotencyKey(),
        async (id, body, auth, key) => {
          const headers = { ...fuzzHeaders(auth, key), "content-type": body.type };
          const path = `/v2/subscribers/${id.segment}`;
          const response = await server.request(path, { method: "PATCH", key: null, headers, body: body.text });
          const idValid = id.valid;
          const allowed = allowedStatuses(
            { authValid: auth.valid, keyValid: key.valid, inputValid: body.valid && idValid },
            // 422 stays possible for a valid-looking time zone the time-zone database does not know.
            [200, 404, 422],
          );
          const { status, body: answer } = await checkAnswer("patchSubscriber", response, allowed);
          tally.add(status);
          if (status === 422 && auth.valid && key.valid && body.valid && idValid) {
            expect(Object.keys(answer.errors as object)).toEqual(["body.timezone"]);
          }
        },
      ),
      {
        ...fuzzParameters<[Segment, RawBody, AuthCase, Generated<string | undefined>]>(deepFuzzRuns),
        // One request of each kind the tally expects, whatever the draws (fuzz-check.ts, StatusTally): a PATCH of a
        // subscriber that does not exist is about one draw in 170, one answered 200 one in 130.
        examples,
      },
    );
    tally.expectSaw([200, 400, 401, 404, 415, 422], "PATCH /v2/subscribers/{subscriberId}");
  }, 1_200_000);
});
