import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { tsc7 } from "./scripts/typescript.js";
import { isolated, noPostgres, notRuntime } from "./test/scopes.js";
import LongestFirst from "./test/sequencer.js";

/**
 * The `--exclude` globs of the command line (`npm test` gives the release proofs'). vitest 4.1 applies them to the
 * root config only, not to its projects (resolveProjects passes on a fixed list of options), so they are passed on
 * here; test/layout/scopes.test.ts holds `npm test` to leaving the release proofs out.
 */
function commandLineExcludes(argv: string[]): string[] {
  return argv.flatMap((arg, index) => {
    if (arg === "--exclude") return argv[index + 1] === undefined ? [] : [argv[index + 1] as string];
    return arg.startsWith("--exclude=") ? [arg.slice("--exclude=".length)] : [];
  });
}

const excluded = [
  ...configDefaults.exclude,
  ...commandLineExcludes(process.argv),
  ...(process.env.TEST_SCOPE === "runtime" ? notRuntime : []),
  ...(process.env.CITUS === "on" ? noPostgres : []),
];

export default defineConfig({
  // The workspace packages (`@novu-query/contract`, ...) resolve to their sources through tsconfig.json's `paths`.
  resolve: { tsconfigPaths: true },
  test: {
    // A hang, not a speed check: tests that open PGlite alone take up to 22 s beside the rest on CI's two cores
    // (pglite-template, pool-errors, the counts' lone short term), and one at 11 s alone passed 30 there (stop 54).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files wait on databases, child processes and installs as much as they compute: as many at once as there
    // are cores, at least two (vitest's default, one fewer than the cores, runs them one by one on two), at most four.
    maxWorkers: Number(process.env.TEST_WORKERS ?? Math.min(4, Math.max(2, availableParallelism()))),
    // The longest files first (test/sequencer.ts); TEST_SHUFFLE_SEED=<n> runs the files in a random order instead (the
    // tests inside each file keep theirs), to show that no file depends on the ones a worker ran before it.
    sequence: process.env.TEST_SHUFFLE_SEED
      ? { shuffle: { files: true, tests: false }, seed: Number(process.env.TEST_SHUFFLE_SEED) }
      : { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: [...excluded, ...isolated],
          // The test files of a worker share its modules, one after another (D80): each file's own state is its
          // servers, databases and directories, which it opens and closes itself.
          isolate: false,
          // Started once however many projects name it (test/global-setup.ts).
          globalSetup: ["test/global-setup.ts"],
          // The type tests' outcome is tsc's, whatever Node runs it: not again in the second Node version's run.
          // TEST_TYPECHECK=off leaves them out (vitest 4.1 does not pass `--typecheck.enabled` on to projects).
          typecheck: {
            enabled: process.env.TEST_SCOPE !== "runtime" && process.env.TEST_TYPECHECK !== "off",
            include: ["test/**/*.test-d.ts"],
            tsconfig: "./tsconfig.json",
            // TypeScript 7, as `npm run typecheck` (scripts/typescript.ts).
            checker: tsc7,
          },
        },
      },
      {
        extends: true,
        test: {
          // The files that mock a module (test/scopes.ts `isolated`), each in a fresh module graph.
          name: "isolated",
          include: isolated,
          exclude: excluded,
          isolate: true,
          globalSetup: ["test/global-setup.ts"],
        },
      },
    ],
  },
});
