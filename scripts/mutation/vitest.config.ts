/**
 * The one test StrykerJS runs for each mutant (conformance-kills.mutation.ts). Unlike the repository's own config,
 * the workspace packages resolve to their built dist/ through node_modules, so that the conformance suite and its
 * oracle are the unmutated build while the implementation under test runs the mutated model from source.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["scripts/mutation/*.mutation.ts"],
    testTimeout: 60_000,
  },
});
