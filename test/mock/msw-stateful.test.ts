/**
 * The MSW handlers' stateful mode (createStatefulHandlers): the conformance suite's behaviour rules pass against it,
 * PATCHes stick until reset, pages end, and a relative base URL works under Node.
 */
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../conformance/run.js";
import { createClient } from "../../contract/index.js";
import { createStatefulHandlers } from "../../contract/msw.js";

const apiKeys = { "stateful-key": "6a0000000000000000000001", "other-key": "6a0000000000000000000002" };
const mock = createStatefulHandlers({ seed: 3, apiKeys, now: "2026-11-24T00:00:00Z" });
const relative = createStatefulHandlers({ baseUrl: "/api", seed: 4 });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  mock.reset();
});
afterAll(() => server.close());

const api = createClient({ baseUrl: "https://api.example.com", apiKey: "stateful-key" });

describe("MSW's stateful mode", () => {
  it("passes every rule of the conformance suite, behaviour level included", async () => {
    const report = await runConformance({
      baseUrl: "https://api.example.com",
      apiKey: "stateful-key",
      otherApiKey: "other-key",
      requestsPerSecond: 0,
    });
    const failed = report.results.filter((result) => !result.passed && !result.todo);
    expect(failed).toEqual([]);
    expect(report.todo).toBe(0);
    expect(report.passed).toBeGreaterThan(30);
  });

  it("keeps a PATCH until reset, and refuses a key it was not given", async () => {
    const [first] = mock.api.data.subscribers.filter((s) => !s.deleted);
    const subscriberId = first?.subscriberId as string;
    const originalName = first?.firstName;
    const { data } = await api.PATCH("/v2/subscribers/{subscriberId}", {
      params: { path: { subscriberId } },
      body: { firstName: "Renamed" },
    });
    expect(data?.firstName).toBe("Renamed");
    // What was read before the PATCH keeps what it held; the data read after it has the change.
    expect(first?.firstName).toBe(originalName);
    expect(mock.api.data.subscribers.find((s) => s.subscriberId === subscriberId)?.firstName).toBe("Renamed");
    const answer = mock.api.searchSubscribers({ subscriberId });
    if (answer.status === 200) expect(answer.body.data[0]?.firstName).toBe("Renamed");
    else throw new Error(`searched ${answer.status}`);
    const found = await api.GET("/v2/subscribers", { params: { query: { subscriberId } } });
    expect(found.data?.data[0]?.firstName).toBe("Renamed");
    mock.reset();
    const again = await api.GET("/v2/subscribers", { params: { query: { subscriberId } } });
    expect(again.data?.data[0]?.firstName).toBe(originalName);
    const other = createClient({ baseUrl: "https://api.example.com", apiKey: "another-key" });
    const refused = await other.GET("/v1/notifications");
    expect(refused.response.status).toBe(401);
    expect(refused.error?.message).toBe("API Key not found");
  });

  it("answers a client whose base URL is relative (/api), under Node", async () => {
    server.use(...relative.handlers);
    const local = createClient({ baseUrl: "/api", apiKey: "any" });
    const { data, response } = await local.GET("/v1/notifications", { params: { query: { limit: 5 } } });
    expect(response.status).toBe(200);
    expect(data?.data).toHaveLength(5);
    expect(response.url).toBe("http://localhost/api/v1/notifications?limit=5");
  });
});
