/**
 * The conformance suite held to its promise: every fault of the catalogue (fault-catalogue.ts), each one small fault
 * in an implementation built on the model, fails the run on a rule that names it, and the same implementation without
 * a fault passes every rule with two keys. The catalogue's size and score are printed for the README.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type ConformanceReport, runConformance } from "../../conformance/run.js";
import { type ModelService, startModelService } from "../support/model-service.js";
import { faults } from "./fault-catalogue.js";

/** The conformance run, all rules or only some (a fault is caught when a rule named after it fails). */
async function conformanceOf(service: ModelService, only?: string[]): Promise<ConformanceReport> {
  const { baseUrl, apiKey, otherApiKey } = service;
  return runConformance({ baseUrl, apiKey, otherApiKey, requestsPerSecond: 0, only });
}

/** The rules that failed (not those skipped or reported as todo). */
const failedRules = (report: ConformanceReport) => report.results.filter((r) => !r.passed && !r.todo && !r.skipped);

describe("the fault catalogue", () => {
  const caught: string[] = [];
  const prevented = faults.filter((fault) => fault.preventedByPipeline);
  const catchable = faults.filter((fault) => !fault.preventedByPipeline);
  afterAll(() => {
    process.stdout.write(
      `\nConformance mutation score: ${caught.length} of ${catchable.length} faults caught; ${prevented.length} more prevented by the skeleton's pipeline\n`,
    );
  });

  it("has at least 30 faults, each with a distinct id", () => {
    expect(faults.length).toBeGreaterThanOrEqual(30);
    expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
  });

  it("passes every rule on the implementation without a fault, with two keys", async () => {
    const service = await startModelService();
    try {
      const report = await conformanceOf(service);
      expect(failedRules(report).map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
      expect(report.skipped).toBe(0);
    } finally {
      await service.close();
    }
  });

  it.each(prevented.map((fault) => [fault.id, fault] as const))(
    "prevents %s: the pipeline refuses before the handler, and the rules pass",
    async (_id, fault) => {
      const service = await startModelService(fault.service);
      try {
        const report = await conformanceOf(service, fault.caughtBy);
        expect(failedRules(report).map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
        expect(report.results.filter((r) => r.passed).length).toBeGreaterThan(0);
      } finally {
        await service.close();
      }
    },
  );

  it.each(catchable.map((fault) => [fault.id, fault] as const))("catches %s", async (_id, fault) => {
    const service = await startModelService(fault.service);
    try {
      // The rules named after the fault only: a full run fails them just the same (the rules run one after
      // another, each on the data as read), at a fraction of the time.
      const report = await conformanceOf(service, fault.caughtBy);
      const failed = failedRules(report).map((r) => r.id);
      const named = failed.filter((id) =>
        fault.caughtBy.some((rule) => (rule.endsWith(".") ? id.startsWith(rule) : id === rule)),
      );
      expect(
        named,
        `"${fault.description}" failed ${failed.join(", ") || "no rule"}; expected one of ${fault.caughtBy.join(", ")}`,
      ).not.toEqual([]);
      caught.push(fault.id);
    } finally {
      await service.close();
    }
  });
});
