/**
 * The fuzzers have teeth at the default budget: with the request rules switched off (the module mocked out), the same
 * arbitraries find input PostgreSQL cannot store, answered 500, within the runs `npm test` gives a property.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deepFuzzRuns, fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { queryFor } from "./arbitraries.js";

vi.mock("../../express/request-rules.js", async (original) => ({
  ...(await original<typeof import("../../express/request-rules.js")>()),
  refuseUnstorableInput: (_req: unknown, _res: unknown, next: () => void) => next(),
}));

describe("the fuzzers, with the request rules switched off", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 20, notifications: 20 } });
  });
  afterAll(() => server?.close());

  it.for(["searchSubscribers", "listNotifications"] as const)("find a request %s answers 500", async (id) => {
    const path = id === "searchSubscribers" ? "/v2/subscribers" : "/v1/notifications";
    const result = await fc.check(
      fc.asyncProperty(queryFor(id), async (query) => {
        const response = await server.request(`${path}?${new URLSearchParams(query.params)}`);
        return response.status < 500;
      }),
      fuzzParameters(deepFuzzRuns),
    );
    expect(result.failed).toBe(true);
    expect(JSON.stringify(result.counterexample)).toContain("\\u0000");
  });
});
