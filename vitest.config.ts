import { defineConfig } from "vitest/config";

export default defineConfig({
  // The workspace packages (`@novu-query/contract`, ...) resolve to their sources through tsconfig.json's `paths`.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
