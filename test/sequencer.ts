/**
 * The order test files start in, for a run that has few workers: the longest first, so that none of them starts
 * last and runs alone while the other workers sit idle (a fresh clone has no timings of its own to sort by). The
 * packaging tests that install the packed tarballs start after `packages.test.ts` has packed them, not beside it,
 * so that no worker waits for the packing. Failed files of the last run come first, as vitest's own order has them.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take half a minute or more on two cores, longest first (measured by `npm test` and `npm run test:release`
 * on 2026-12-01): the release proofs' and the suite's, each run keeping this order among its own.
 */
const longest = [
  "test/kit/add-parameter.test.ts",
  "test/packages/packages.test.ts",
  "test/kit/add-operation.test.ts",
  "test/conformance/conformance.test.ts",
  "test/conformance/fault-catalogue.test.ts",
  "test/packages/host-apps.test.ts",
  "test/reliability/fuzz-notifications.test.ts",
  "test/conformance/harmless.test.ts",
  "test/reliability/full-disk.test.ts",
  "test/reliability/fuzz-subscribers.test.ts",
];
/** Files that wait for `packages.test.ts` to pack the tarballs. */
const afterPacking = ["test/packages/backend-team.test.ts", "test/packages/frontend-app.test.ts"];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const path = file.moduleId.slice(file.project.config.root.length + 1);
      const index = longest.indexOf(path);
      if (index >= 0) return index;
      return afterPacking.includes(path) ? longest.length : longest.length + 1;
    };
    return sorted
      .map((file, position) => ({ file, position }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.position - b.position)
      .map(({ file }) => file);
  }
}
