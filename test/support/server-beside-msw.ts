/**
 * The reference server (on PGlite, with a little demo data) and the stateful MSW handlers on `mswBase`, which know
 * the server's production key, started for one describe block: what the tests that send the same request to both
 * and compare the answers share.
 */
import { createStatefulHandlers } from "@novu-query/contract/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer, type TestServerOptions } from "./server.js";

export function serverBesideMsw(mswBase: string, demo: TestServerOptions["demo"]): { server: TestServer } {
  const running = {} as { server: TestServer };
  let msw: ReturnType<typeof setupServer> | undefined;
  beforeAll(async () => {
    running.server = await startTestServer({ driver: "pglite", demo });
    const { production } = running.server;
    const mock = createStatefulHandlers({
      baseUrl: mswBase,
      apiKeys: { [production.apiKey]: production.environmentId },
    });
    msw = setupServer(...mock.handlers);
    msw.listen({ onUnhandledRequest: "bypass" });
  });
  afterAll(async () => {
    msw?.close();
    await running.server?.close();
  });
  return running;
}
