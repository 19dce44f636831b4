import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { tsc7 } from "./scripts/typescript.js";
import { noPostgres, notRuntime } from "./test/scopes.js";
import LongestFirst from "./test/sequencer.js";

const excluded = [
  ...(process.env.TEST_SCOPE === "runtime" ? notRuntime : []),
  ...(process.env.CITUS === "on" ? noPostgres : []),
];

export default defineConfig({
  // The workspace packages (`@novu-query/contract`, ...) resolve to their sources through tsconfig.json's `paths`.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...excluded],
    globalSetup: ["test/global-setup.ts"],
    // The type tests' outcome is tsc's, whatever Node runs it: not again in the second Node version's run.
    typecheck: {
      enabled: process.env.TEST_SCOPE !== "runtime",
      include: ["test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
      // TypeScript 7, as `npm run typecheck` (scripts/typescript.ts).
      checker: tsc7,
    },
    // A hang, not a speed check: tests that open PGlite alone take up to 22 s beside the rest on CI's two cores
    // (pglite-template, pool-errors, the counts' lone short term), and one at 11 s alone passed 30 there (stop 54).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files wait on databases, child processes and installs as much as they compute: as many at once as there
    // are cores, at least two (vitest's default, one fewer than the cores, runs them one by one on two), at most four.
    maxWorkers: Number(process.env.TEST_WORKERS ?? Math.min(4, Math.max(2, availableParallelism()))),
    sequence: { sequencer: LongestFirst },
  },
});
