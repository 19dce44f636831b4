/**
 * Benchmark figures live in the files the runs write (bench/RESULTS.md, bench/STARTUP.md) and in the hand-written
 * bench/ANALYSIS.md that names its run; the README and the guides link them and quote none, so a benchmark run
 * changes no README or guide.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
/** The README and the guides; not the decisions (dated records, each with what was measured then) nor generated files. */
const documents = ["README.md", ...readdirSync(join(root, "docs")).map((file) => `docs/${file}`)].filter(
  (file) => file.endsWith(".md") && !/^docs\/(mutation-|decisions)/.test(file),
);
/** A measured figure: a named run, a rate, a ratio to another target. Targets (≥, ≤) and rates sent (at N/s) are not. */
const measured = /run of \d{4}-\d{2}-\d{2}|\d[\d,.]* req\/s|\d[\d,.]* rows\/s|\d+(\.\d+)?× (Prism|minimal)/;
const notMeasured = /[≥≤]|\bat \d[\d,]* req\/s/;

describe("the benchmark's figures", () => {
  it("are linked from the README and the performance guide", () => {
    for (const file of ["README.md", "docs/performance.md"]) {
      expect(readFileSync(join(root, file), "utf8"), file).toContain("bench/RESULTS.md");
    }
  });

  it("are quoted by no README or guide: no run named, no requests a second, no benchmark rate", () => {
    const quoting = documents.flatMap((file) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .filter((line) => measured.test(line) && !notMeasured.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(quoting).toEqual([]);
  });

  it("are written by the benchmark only under bench/: it names no README or guide", () => {
    const writers = readdirSync(join(root, "bench")).filter((file) => file.endsWith(".ts"));
    const naming = writers.filter((file) =>
      /["'`](\.\.\/)*(README\.md|docs\/)/.test(readFileSync(join(root, "bench", file), "utf8")),
    );
    expect(naming).toEqual([]);
  });
});
