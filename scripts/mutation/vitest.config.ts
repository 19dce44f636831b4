/**
 * The one test StrykerJS runs for each mutant (conformance-kills.mutation.ts). Unlike the repository's own config,
 * the workspace packages resolve to their built dist/ through node_modules, so that the conformance suite and its
 * oracle are the unmutated build while the implementation under test runs the mutated model from source: its four
 * operations (passed in by the test) and its pipeline, the built @novu-query/express, whose imports of the model are
 * sent to the source here (the header's reading, the content types, the query's keys).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const modelSource = fileURLToPath(new URL("../../contract/model/index.ts", import.meta.url));
/** A file of the built skeleton package (node_modules/@novu-query/express links to express/). */
const skeletonFile = /[\\/]express[\\/]dist[\\/]/;

export default defineConfig({
  plugins: [
    {
      name: "skeleton-on-the-model-source",
      enforce: "pre",
      resolveId(id, importer) {
        return id === "@novu-query/contract/model" && importer && skeletonFile.test(importer) ? modelSource : null;
      },
    },
  ],
  test: {
    include: ["scripts/mutation/*.mutation.ts"],
    testTimeout: 60_000,
    // Loaded through Vite, so that the plugin above sees its imports (a package is otherwise left to Node).
    server: { deps: { inline: ["@novu-query/express", skeletonFile] } },
  },
});
