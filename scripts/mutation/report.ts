/**
 * Writes docs/mutation-results.md from StrykerJS's JSON report (reports/mutation/mutation.json): the score per file
 * and every mutant the conformance suite let through, with the line it changed. What the survivors mean is written
 * by a person, beside it, in docs/mutation-analysis.md.
 * Usage: tsx scripts/mutation/report.ts   (npm run mutation runs it after StrykerJS)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exitWithUsageIfAsked } from "../usage.js";

exitWithUsageIfAsked("Usage: tsx scripts/mutation/report.ts   writes docs/mutation-results.md from StrykerJS's report");

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

const root = fileURLToPath(new URL("../../", import.meta.url));
const report = JSON.parse(readFileSync(`${root}reports/mutation/mutation.json`, "utf8")) as Report;
/** StrykerJS's score: killed and timed out, of every mutant that was not a compile error. */
const killed = (mutants: Mutant[]) => mutants.filter((m) => m.status === "Killed" || m.status === "Timeout").length;
const valid = (mutants: Mutant[]) =>
  mutants.filter((m) => !["CompileError", "RuntimeError", "Ignored"].includes(m.status));
const score = (mutants: Mutant[]) => `${((100 * killed(mutants)) / Math.max(1, valid(mutants).length)).toFixed(1)}%`;

const all = Object.values(report.files).flatMap((file) => file.mutants);
const lines = [
  "# Mutation score of the conformance suite",
  "",
  `Written by \`npm run mutation\` on ${new Date().toISOString().slice(0, 10)}: StrykerJS mutates the contract's model`,
  "(`contract/model/`) as an implementation (the model-backed service of `test/support/model-service.ts`), and the",
  "conformance suite, with its oracle on the unmutated build, is the only test. A mutant the suite still passes",
  "survived. What the survivors mean: [mutation-analysis.md](mutation-analysis.md).",
  "",
  "| file | mutants | killed | survived | not run by any rule | score |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...Object.entries(report.files).map(([file, { mutants }]) => {
    const count = (status: string) => mutants.filter((m) => m.status === status).length;
    return `| ${file} | ${valid(mutants).length} | ${killed(mutants)} | ${count("Survived")} | ${count("NoCoverage")} | ${score(mutants)} |`;
  }),
  `| **all** | ${valid(all).length} | ${killed(all)} | ${all.filter((m) => m.status === "Survived").length} | ${
    all.filter((m) => m.status === "NoCoverage").length
  } | **${score(all)}** |`,
  "",
  "## Mutants that survived, or that no rule ran",
  "",
  "| file:line | mutator | replacement | the line |",
  "| --- | --- | --- | --- |",
];
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const text = source.split("\n");
  for (const mutant of mutants.filter((m) => m.status === "Survived" || m.status === "NoCoverage")) {
    const line = mutant.location.start.line;
    const cell = (value: string) => `\`${value.replaceAll("|", "\\|").replaceAll("`", "'").slice(0, 80)}\``;
    lines.push(
      `| ${file}:${line}${mutant.status === "NoCoverage" ? " (not run)" : ""} | ${mutant.mutatorName} | ${cell(
        mutant.replacement ?? "",
      )} | ${cell((text[line - 1] ?? "").trim())} |`,
    );
  }
}
writeFileSync(`${root}docs/mutation-results.md`, `${lines.join("\n")}\n`);
console.log(`Mutation score ${score(all)} (${killed(all)} of ${valid(all).length}); docs/mutation-results.md written`);
