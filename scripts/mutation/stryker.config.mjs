// StrykerJS over the contract's model as an implementation, with the conformance suite as its only test
// (`npm run mutation`). Each mutant that the suite still passes is a behaviour the rules do not pin down.
export default {
  packageManager: "npm",
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "scripts/mutation/vitest.config.ts" },
  // The model's semantics, the operations' and the skeleton's (scripts/mutation/vitest.config.ts runs both from the
  // source); not the words (the catalogue of messages, and the schema's messages), the answer types, the idempotency
  // fingerprint (the skeleton hashes it, from its built copy), or the seeded random source the conformance suite's
  // own inputs draw from (its built copy: no implementation runs it).
  mutate: [
    "contract/model/*.ts",
    "!contract/model/index.ts",
    "!contract/model/messages.ts",
    "!contract/model/schema-messages.ts",
    "!contract/model/answers.ts",
    "!contract/model/idempotency.ts",
    "!contract/model/random.ts",
  ],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  // The sandbox holds only what the one test reads: the model's source, the service and this folder (the packages
  // come built, through node_modules).
  ignorePatterns: [
    "/*",
    "!/contract",
    "/contract/dist",
    "!/generated",
    "!/test",
    "/test/*",
    "!/test/support",
    "!/scripts",
    "/scripts/*",
    "!/scripts/mutation",
    "!/package.json",
    "!/tsconfig.json",
  ],
};
