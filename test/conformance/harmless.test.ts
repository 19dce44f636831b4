/**
 * The conformance suite never harms the data it is pointed at, and never fails a correct service for stored data the
 * contract would refuse on write. Before: the default run PATCHed the first subscriber, nulled its fields, then could
 * not put back its stored e-mail (`...@pct%corp.net`, which the PATCH refuses as not an e-mail): the correct service
 * failed patch.read-back and the subscriber was left with every field null.
 */
import { afterEach, describe, expect, it } from "vitest";
import { rules } from "../../conformance/rules.js";
import { runConformance } from "../../conformance/run.js";
import { type ModelService, startModelService } from "../support/model-service.js";

const services: ModelService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

/** A correct service whose every subscriber holds an e-mail the contract refuses, and some a time zone it refuses. */
async function serviceWithUnwritableData(): Promise<ModelService> {
  const service = await startModelService();
  services.push(service);
  for (const [index, subscriber] of service.data.subscribers.entries()) {
    if (subscriber.email) subscriber.email = subscriber.email.replace(/@.*/, "@pct%corp.net");
    if (index % 3 === 0) subscriber.timezone = "Mars/Olympus_Mons";
  }
  return service;
}

const stable = (service: ModelService) =>
  service.data.subscribers.map(({ __v: _v, updatedAt: _u, ...fields }) => fields);

describe("the conformance suite on data it could not write back", () => {
  it("passes a correct service and puts back every field it changed", async () => {
    const service = await serviceWithUnwritableData();
    const before = structuredClone(stable(service));
    const { baseUrl, apiKey, otherApiKey } = service;
    const report = await runConformance({ baseUrl, apiKey, otherApiKey, requestsPerSecond: 0 });
    const failed = report.results.filter((r) => !r.passed && !r.todo && !r.skipped);
    expect(failed.map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    expect(stable(service)).toEqual(before);
    const notes = report.results.flatMap((r) => r.notes ?? []);
    expect(notes.some((note) => /leaving email .* alone/.test(note))).toBe(true);
  }, 120_000);

  it("sends no PATCH with readOnly, reporting the rules that write as not run", async () => {
    const service = await serviceWithUnwritableData();
    const before = structuredClone(service.data.subscribers);
    const { baseUrl, apiKey, otherApiKey } = service;
    const report = await runConformance({ baseUrl, apiKey, otherApiKey, requestsPerSecond: 0, readOnly: true });
    expect(service.data.subscribers).toEqual(before);
    const writing = rules.filter((rule) => rule.writes).map((rule) => rule.id);
    const skipped = report.results.filter((r) => r.skipped?.includes("read-only")).map((r) => r.id);
    expect(skipped.sort()).toEqual(writing.sort());
    expect(report.failed).toBe(0);
  }, 120_000);
});
