/**
 * bench/RESULTS.md re-rendered after one section was measured alone (`npm run bench:overload`, `npm run bench:citus`,
 * `npm run bench:data`): each section shows its newest measurement, whether that is the full run's own or a later
 * file measured alone.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type BenchResults, evaluateTargets, rawName, rerenderResults, serverName } from "../../bench/report.js";

const fullRun = "bench/results/2026-11-27.json";
const citusRun = "bench/results/citus-2026-11-27.json";

describe("RESULTS.md re-rendered from the full run and the sections measured alone", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function benchDir(citusMeasuredAt: string, fullCitusMeasuredAt: string): string {
    dir = mkdtempSync(join(os.tmpdir(), "bench-results-"));
    const full = JSON.parse(readFileSync(fullRun, "utf8"));
    const citus = JSON.parse(readFileSync(citusRun, "utf8"));
    full.citus = { ...citus, measuredAt: fullCitusMeasuredAt };
    // The files of the day these tests stage, and none later: a newer run would be the full run they re-render.
    cpSync("bench/results", join(dir, "results"), {
      recursive: true,
      filter: (source) => (/\d{4}-\d{2}-\d{2}/.exec(source)?.[0] ?? "") <= "2026-11-27",
    });
    writeFileSync(join(dir, "results/2026-11-27.json"), JSON.stringify(full));
    writeFileSync(
      join(dir, "results/citus-2026-11-27.json"),
      JSON.stringify({ ...citus, measuredAt: citusMeasuredAt }),
    );
    return dir;
  }

  it("shows a section measured alone after the full run, not the full run's older one", () => {
    const at = benchDir("2026-11-27T05:43:00.000Z", "2026-11-27T01:34:00.000Z");
    rerenderResults(at);
    const results = readFileSync(join(at, "RESULTS.md"), "utf8");
    expect(results).toContain("Measured 2026-11-27 05:43 UTC by `npm run bench:citus`");
    expect(results).not.toContain("Measured 2026-11-27 01:34 UTC by `npm run bench:citus`");
  });

  it("shows a load measured after the full run (npm run bench:data), not the full run's older one", () => {
    const at = benchDir("2026-11-27T01:34:00.000Z", "2026-11-27T01:34:00.000Z");
    const full = JSON.parse(readFileSync(join(at, "results/2026-11-27.json"), "utf8"));
    writeFileSync(
      join(at, "results/2026-11-27.json"),
      JSON.stringify({ ...full, load: { ...full.load, startedAt: "2026-11-27T00:49:00.000Z", rowsPerSecond: 6081 } }),
    );
    const load = JSON.parse(readFileSync(join(at, "results/load-2026-11-27.json"), "utf8"));
    writeFileSync(
      join(at, "results/load-2026-11-27.json"),
      JSON.stringify({ ...load, startedAt: "2026-11-27T05:43:00.000Z", rowsPerSecond: 12345 }),
    );
    rerenderResults(at);
    const results = readFileSync(join(at, "RESULTS.md"), "utf8");
    expect(results).toContain("`npm run bench:data` (2026-11-27 05:43 UTC");
    expect(results).toContain("**12,345 rows/s**");
    expect(results).not.toContain("6,081 rows/s");
  });

  it("shows the PostgreSQL overload measured alone after the run (bench:overload --postgres), in its table and targets", () => {
    const at = benchDir("2026-11-27T01:34:00.000Z", "2026-11-27T01:34:00.000Z");
    const full = JSON.parse(readFileSync(join(at, "results/2026-11-27.json"), "utf8"));
    const result = { ...full.overload, cheapMixed: { ...full.overload.cheapMixed, p99: 12.345 } };
    // An hour after the full run finished, whenever that was.
    const measuredAt = new Date(Date.parse(full.finishedAt) + 3_600_000).toISOString();
    writeFileSync(
      join(at, "results/overload-postgres-2026-11-27.json"),
      JSON.stringify({ measuredAt, node: "v24.99.0", result }),
    );
    rerenderResults(at);
    const results = readFileSync(join(at, "RESULTS.md"), "utf8");
    expect(results).toContain("## Overload (server on PostgreSQL, v24.99.0, default settings)");
    expect(results).toContain(
      `Measured ${measuredAt.slice(0, 10)} ${measuredAt.slice(11, 16)} UTC by \`npm run bench:overload -- --postgres\``,
    );
    expect(results).toMatch(/\| cheap, beside the flood \|[^\n]*\| 12\.345 \|/);
    expect(results).toContain(`12.345 ms beside ${result.expensiveRate}/s vs ${result.cheapAlone.p99} ms alone`);
  });

  it("keeps the full run's own section when it is the newer", () => {
    const at = benchDir("2026-11-27T01:34:00.000Z", "2026-11-27T05:43:00.000Z");
    rerenderResults(at);
    expect(readFileSync(join(at, "RESULTS.md"), "utf8")).toContain(
      "Measured 2026-11-27 05:43 UTC by `npm run bench:citus`",
    );
  });

  it("holds the list to 20% of raw node:http (#45): missed below it, met at it", () => {
    const full = JSON.parse(readFileSync(fullRun, "utf8")) as BenchResults;
    const target = (results: BenchResults) =>
      evaluateTargets(results).find((entry) => entry.name === "the list against raw node:http");
    expect(target(full)?.met).toBe(false);
    const throughput = full.throughput.map((entry) =>
      entry.operation === "list"
        ? { ...entry, medians: { ...entry.medians, [rawName]: (entry.medians[serverName] ?? 0) * 5 } }
        : entry,
    );
    expect(target({ ...full, throughput })).toMatchObject({ met: true, measured: expect.stringContaining("= 20.0%") });
  });
});
