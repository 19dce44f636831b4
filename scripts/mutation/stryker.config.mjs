// StrykerJS over the contract's model as an implementation, with the conformance suite as its only test
// (`npm run mutation`). Each mutant that the suite still passes is a behaviour the rules do not pin down.
export default {
  packageManager: "npm",
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "scripts/mutation/vitest.config.ts" },
  mutate: ["client/model/*.ts", "!client/model/index.ts", "!client/model/messages.ts", "!client/model/answers.ts"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
};
