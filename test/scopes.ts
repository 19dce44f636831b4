/** Which test files a run leaves out: vitest.config.ts applies these, test/layout/scopes.test.ts holds them true. */

/**
 * The release proofs: the packages as another team meets them (built, packed, installed from their tarballs into apps
 * outside the repository and used there under Node 20 and 24) and the contract guide's loops in temporary copies of
 * the repository (add an operation, add a query parameter: built, checked and tested again). They exercise the build,
 * npm and the compilers more than this repository's code, and are a third of a whole run's time. `npm test` leaves
 * them out (package.json passes these as `--exclude`); `npm run test:release` runs them alone, `npm run test:all`
 * runs everything, and CI runs `npm test` and `npm run test:release` on every change.
 */
export const releaseProofs = ["test/kit/**", "test/packages/**"];

/**
 * `TEST_SCOPE=runtime`: only the suites whose outcome can depend on the Node.js version that runs them (the HTTP
 * server and its sockets, the PGlite worker and its supervisor, processes started and stopped, the clients and
 * mocks), for the second Node version in CI. Left out: the SQL and model suites (the database decides them), the
 * property tests, the build, diff and docs checks, the conformance suite (the rules' outcome is the server's, which
 * the server suites cover on each Node), and the packaging tests, which run every app under Node 20 and 24 already.
 */
export const notRuntime = [
  ...releaseProofs,
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
  "test/server/bench-schema-check.test.ts",
  "test/server/bench-vacuum.test.ts",
  // The operations' own suites: what they check, the database decides. The HTTP server they go through is the part
  // the runtime can change, which auth-and-errors, http-edges, red-team, limits, the SDK and the client suites cover
  // on the second Node version.
  "test/server/subscriber-search.test.ts",
  "test/server/notifications.test.ts",
  "test/server/subscriber-patch.test.ts",
  "test/server/idempotency.test.ts",
  "test/server/idempotency-claim.test.ts",
  "test/server/dense-substring-walk.test.ts",
  "test/server/prepared-statements.test.ts",
  "test/server/update-order.test.ts",
  "test/server/notification-text-compression.test.ts",
  "test/server/notification-answers.test.ts",
  // NODE_ENV=production's refusals are the server's logic; start.test.ts starts and stops processes on each Node.
  "test/server/production-start.test.ts",
  // What survives kill -9 is the database's (its WAL, PGlite's fsync), and a data directory's lock is a file and a
  // pid's liveness, the same system calls on every Node; the processes they start and kill are start.test.ts's on
  // each Node, and full-disk.test.ts keeps PGlite's worker and its supervisor on Node 24 (D78).
  "test/reliability/durability.test.ts",
  "test/reliability/data-directory-lock.test.ts",
  // What the database decides: statistics after a load, the migration lock under a statement timeout, the template.
  "test/server/statistics.test.ts",
  "test/server/migration-lock.test.ts",
  "test/server/postgres-template.test.ts",
  // The rate limits' arithmetic and policy (the HTTP layer they answer through is covered by the suites above).
  "test/server/limits.test.ts",
  // Generated code and the schemas' parsing: plain JavaScript, which the runtime does not change.
  "test/server/scaffold.test.ts",
  "test/contract/zod.test.ts",
  // Run in Chromium: the browser, not Node, runs the handlers and the page (the mocks they call run on each Node in
  // the mock suites).
  "test/mock/msw-browser.test.ts",
  "test/mock/stateful-browser.test.ts",
];

/**
 * `CITUS=on`: the suites that never open a PostgreSQL database (PGlite alone, or no database) are left out. They would
 * run exactly as they ran in `npm test`: with CITUS=on the database suites run on the coordinator alone
 * (test/support/databases.ts `drivers`), and these have nothing for it to run.
 */
export const noPostgres = [
  "test/sdk/**",
  "test/server/demo-snapshot.test.ts",
  "test/server/key-cache.test.ts",
  "test/server/keys-cli.test.ts",
  "test/server/load-overlap.test.ts",
  "test/server/object-id.test.ts",
  "test/server/pglite-template.test.ts",
  "test/server/production-start.test.ts",
  "test/server/scaffold.test.ts",
  "test/server/start.test.ts",
];

/**
 * The files that replace a module for themselves (`vi.mock`, `vi.doMock`): vitest.config.ts runs them in a project
 * of their own, each in a fresh module graph. Every other file shares its worker's modules (D80), where such a mock
 * would not reach a module an earlier file loaded, and could reach later files. test/layout/scopes.test.ts holds this
 * list to the files that mock.
 */
export const isolated = ["test/reliability/fuzz-teeth.test.ts"];
