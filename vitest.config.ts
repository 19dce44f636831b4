import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import LongestFirst from "./test/sequencer.js";

/**
 * `TEST_SCOPE=runtime`: only the suites whose outcome can depend on the Node.js version that runs them (the HTTP
 * server and its sockets, the PGlite worker and its supervisor, processes started and stopped, the clients and
 * mocks), for the second Node version in CI. Left out: the SQL and model suites (the database decides them), the
 * property tests, the build, diff and docs checks, the conformance suite (the rules' outcome is the server's, which
 * the server suites cover on each Node), and the packaging tests, which run every app under Node 20 and 24 already.
 */
const notRuntime = [
  "test/kit/**",
  "test/packages/**",
  "test/diff/**",
  "test/docs/**",
  "test/layout/**",
  "test/conformance/**",
  "test/scale/**",
  "test/reliability/isolation.test.ts",
  "test/reliability/concurrency.test.ts",
  "test/server/gram-index-merges.test.ts",
  "test/server/demo-snapshot.test.ts",
  "test/server/foreign-key-checks.test.ts",
  "test/server/token-bucket.test.ts",
  "test/server/cursor-walk.test.ts",
  "test/server/unstorable-input.test.ts",
  "test/reliability/fuzz-*.test.ts",
  "test/server/store-model.test.ts",
  "test/server/email-domain-counts.test.ts",
  "test/server/search-gram-counts.test.ts",
  "test/server/kept-counts-recount.test.ts",
  "test/server/query-plans.test.ts",
  "test/server/substring-search.test.ts",
  "test/server/migrations.test.ts",
];

export default defineConfig({
  // The workspace packages (`@novu-query/contract`, ...) resolve to their sources through tsconfig.json's `paths`.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(process.env.TEST_SCOPE === "runtime" ? notRuntime : [])],
    globalSetup: ["test/global-setup.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files wait on databases, child processes and installs as much as they compute: as many at once as there
    // are cores, at least two (vitest's default, one fewer than the cores, runs them one by one on two), at most four.
    maxWorkers: Number(process.env.TEST_WORKERS ?? Math.min(4, Math.max(2, availableParallelism()))),
    sequence: { sequencer: LongestFirst },
  },
});
