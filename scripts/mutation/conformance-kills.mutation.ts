/**
 * A mutant of the model survives when the conformance suite still passes an implementation built on it. The
 * implementation is the catalogue's model-backed service (test/support/model-service.ts) with its four operations
 * taken from the model's source, which StrykerJS mutates; the suite is the built @novu-query/conformance, whose oracle
 * uses the built, unmutated model.
 */
import { runConformance } from "@novu-query/conformance";
import { expect, it } from "vitest";
import * as model from "../../contract/model/index.js";
import { startModelService } from "../../test/support/model-service.js";

it("the conformance suite passes the implementation built on the model", async () => {
  const service = await startModelService({
    operations: {
      scope: (rows, environmentId) => model.inEnvironment(rows, environmentId),
      search: model.searchSubscribers,
      patch: model.patchSubscriber,
      list: model.listNotifications,
      get: model.getNotification,
    },
  });
  try {
    const { baseUrl, apiKey, otherApiKey } = service;
    const report = await runConformance({ baseUrl, apiKey, otherApiKey, requestsPerSecond: 0 });
    const failed = report.results.filter((r) => !r.passed && !r.todo).map((r) => `${r.id}: ${r.reason}`);
    expect(failed).toEqual([]);
  } finally {
    await service.close();
  }
});
