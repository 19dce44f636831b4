import { dateTimeMilliseconds } from "@novu-query/contract/model";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { deepFuzzRuns, fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { authorization, idempotencyKey, type QueryRequest, queryExamples, queryFor } from "./arbitraries.js";
import { allowedStatuses, checkAnswer, fuzzHeaders, fuzzRuns, StatusTally } from "./fuzz-check.js";

describe(`fuzzing the notification operations (${fuzzRuns} requests each)`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 40, notifications: 150 } });
  });
  afterAll(() => server?.close());

  it("GET /v1/notifications never fails and answers as declared", async () => {
    // The 400: a window whose `after` is later than its `before`.
    const examples = queryExamples(server.production.apiKey, {
      after: "2026-02-01T00:00:00.000Z",
      before: "2026-01-01T00:00:00.000Z",
    });
    const tally = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        queryFor("listNotifications"),
        authorization(server.production.apiKey),
        idempotencyKey(),
        async (query, auth, key) => {
          const headers = fuzzHeaders(auth, key);
          const response = await server.request(`/v1/notifications?${new URLSearchParams(query.params)}`, {
            key: null,
            headers,
          });
          const { after, before } = query.values;
          // The instants as the contract reads them (leap seconds, `+01` and the like: the model's parser).
          const reversed =
            typeof after === "string" &&
            typeof before === "string" &&
            dateTimeMilliseconds(after) > dateTimeMilliseconds(before);
          const afterOnly =
            typeof after === "string" && before === undefined && dateTimeMilliseconds(after) > Date.now();
          // Without `after`, the window starts at 1970 (or at retention): a `before` earlier than that is reversed.
          const beforeOnly = typeof before === "string" && after === undefined && dateTimeMilliseconds(before) < 0;
          const { status } = await checkAnswer(
            "listNotifications",
            response,
            allowedStatuses(
              { authValid: auth.valid, keyValid: key.valid, inputValid: query.valid },
              reversed || afterOnly || beforeOnly ? [400] : [200],
            ),
          );
          tally.add(status);
        },
      ),
      {
        ...fuzzParameters<QueryRequest>(deepFuzzRuns),
        // One request of each kind the tally expects, whatever the draws (fuzz-check.ts, StatusTally).
        examples,
      },
    );
    tally.expectSaw([200, 400, 401, 422], "GET /v1/notifications");
  }, 1_200_000);

  it("GET /v1/notifications/{notificationId} never fails and answers as declared", async () => {
    const known = [...server.production.notifications, ...server.development.notifications].map((n) => n.id);
    const id = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...known).map((value) => ({ value, valid: true })) },
      { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-f]{24}$/).map((value) => ({ value, valid: true })) },
      {
        weight: 2,
        arbitrary: fc
          .string({ minLength: 1, maxLength: 40 })
          // "." and ".." are not sendable as a path segment: URL parsers resolve them before the request leaves.
          .filter((s) => !/^[0-9a-f]{24}$/.test(s) && s !== "." && s !== "..")
          .map((value) => ({ value, valid: false })),
      },
    );
    const tally = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        id,
        authorization(server.production.apiKey),
        idempotencyKey(),
        async (notificationId, auth, key) => {
          const headers = fuzzHeaders(auth, key);
          const response = await server.request(`/v1/notifications/${encodeURIComponent(notificationId.value)}`, {
            key: null,
            headers,
          });
          const { status } = await checkAnswer(
            "getNotification",
            response,
            allowedStatuses(
              { authValid: auth.valid, keyValid: key.valid, inputValid: notificationId.valid },
              [200, 404],
            ),
          );
          tally.add(status);
        },
      ),
      fuzzParameters(deepFuzzRuns),
    );
    tally.expectSaw([200, 401, 404, 422], "GET /v1/notifications/{notificationId}");
  }, 1_200_000);
});
