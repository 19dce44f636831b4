import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoEnvironment } from "../../server/demo/generate.js";
import { drivers } from "../support/databases.js";
import { fuzzParameters } from "../support/fuzz-budget.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** Every id of an environment, to look for in the other environment's answers. */
function idsOf(environment: DemoEnvironment): Set<string> {
  return new Set([
    environment.environmentId,
    ...environment.subscribers.map((s) => s.id),
    ...environment.notifications.map((n) => n.id),
  ]);
}

describe.each(drivers)("tenant isolation, randomized (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver, demo: { subscribers: 60, notifications: 120 } });
  });
  afterAll(() => server?.close());

  it("never returns or changes one environment's records with the other's key", async () => {
    const environments = [server.production, server.development];
    const everything = environments.flatMap((env) => [
      ...env.subscribers.map((s) => ({
        kind: "subscriber" as const,
        id: s.subscriber_id,
        recordId: s.id,
        email: s.email,
      })),
      ...env.notifications.map((n) => ({ kind: "notification" as const, id: n.id, recordId: n.id, email: null })),
    ]);
    const request = fc.record({
      caller: fc.constantFrom(0, 1),
      target: fc.constantFrom(...everything),
      operation: fc.constantFrom("search", "patch", "list", "get"),
    });
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(request, async ({ caller, target, operation }) => {
        const me = environments[caller] as DemoEnvironment;
        const other = environments[1 - caller] as DemoEnvironment;
        const foreign = idsOf(other);
        const paths: Record<string, [string, RequestInit]> = {
          search: [`/v2/subscribers?limit=100&subscriberId=${encodeURIComponent(target.id)}`, {}],
          patch: [
            `/v2/subscribers/${encodeURIComponent(target.id)}`,
            {
              method: "PATCH",
              body: JSON.stringify({ lastName: `by-${me.name}` }),
              headers: { "content-type": "application/json" },
            },
          ],
          list: [
            `/v1/notifications?limit=50&${target.email ? `emails=${encodeURIComponent(target.email)}` : `subscriberIds=${encodeURIComponent(target.id)}`}`,
            {},
          ],
          get: [`/v1/notifications/${target.kind === "notification" ? target.id : target.recordId}`, {}],
        };
        const [path, init] = paths[operation] as [string, RequestInit];
        const response = await server.request(path, { ...init, key: me.apiKey });
        requests += 1;
        const raw = await response.text();
        // An error answer echoes the caller's own request (its path, the id it asked for): that reveals nothing.
        const text =
          response.status === 200
            ? raw
            : raw.split(JSON.stringify(path).slice(1, -1)).join("").split(target.id).join("");
        if (response.status !== 200) expect(response.status).toBe(404);
        for (const id of foreign) expect(text, `${me.name} saw ${id} of ${other.name} via ${path}`).not.toContain(id);
        if (response.status === 200 && operation === "patch") {
          expect(JSON.parse(raw)._environmentId).toBe(me.environmentId);
        }
      }),
      fuzzParameters(600),
    );
    // And nothing in the other environment was renamed by a caller from outside it.
    for (const env of environments) {
      const response = await server.request("/v2/subscribers?limit=100", { key: env.apiKey });
      const { data } = (await response.json()) as { data: { lastName: string | null }[] };
      const otherName = env === server.production ? "Development" : "Production";
      for (const subscriber of data) expect(subscriber.lastName).not.toBe(`by-${otherName}`);
    }
    console.log(`isolation (${driver}): ${requests} randomized cross-environment requests, no leak`);
  }, 300_000);
});
