/**
 * The backend team's loop, end to end in a temporary copy of the repository: add a method to a path the contract
 * has and a new path, as the README says, run `npm run build` (which scaffolds the stubs), and nothing needs a hand
 * edit for `npm run check` and the tests that every operation reaches to pass. The new operations show up as todo in
 * the conformance coverage, are fuzzed from their spec, and answer 501 until implemented.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepository, run, vitestIn } from "./copy-repository.js";
import {
  getSubscriberMethod,
  subscriberNotificationsPath,
  subscriberNotificationsReference,
} from "./new-operations.js";

describe("adding operations to the contract (in a temporary copy of the repository)", () => {
  let copy: string;
  beforeAll(() => {
    copy = copyRepository();
    const existing = join(copy, "openapi/paths/v2_subscribers_{subscriberId}.yaml");
    writeFileSync(existing, getSubscriberMethod + readFileSync(existing, "utf8"));
    writeFileSync(
      join(copy, "openapi/paths/v2_subscribers_{subscriberId}_notifications.yaml"),
      subscriberNotificationsPath,
    );
    const rootSpec = join(copy, "openapi/openapi.yaml");
    const spec = readFileSync(rootSpec, "utf8");
    expect(spec).toContain("\n  /v1/notifications:\n");
    writeFileSync(
      rootSpec,
      spec.replace("\n  /v1/notifications:\n", `\n${subscriberNotificationsReference}  /v1/notifications:\n`),
    );
  });
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("builds, scaffolding a stub for each new operation", async () => {
    const build = await run(copy, "npm", ["run", "build"]);
    expect(build.status, build.output).toBe(0);
    expect(build.output).toContain("Wrote 2 stub handler(s)");
    const index = readFileSync(join(copy, "server/handlers/index.ts"), "utf8");
    expect(index).toContain('import { getSubscriber } from "./getSubscriber.js";');
    expect(index).toContain('import { listSubscriberNotifications } from "./listSubscriberNotifications.js";');
    const table = readFileSync(join(copy, "generated/operations.ts"), "utf8");
    expect(table).toContain('path: "/v2/subscribers/{subscriberId}/notifications"');
  }, 300_000);

  it("passes npm run check with no hand edit (lint, Biome, typecheck, generated/ up to date)", async () => {
    const check = await run(copy, "npm", ["run", "check"]);
    expect(check.status, check.output).toBe(0);
  }, 300_000);

  it("passes the tests every operation reaches, the new ones fuzzed and reported as todo", async () => {
    // The *.test-d.ts files were type-checked by `npm run check` above.
    const vitest = (...args: string[]) => vitestIn(copy, 500, "--reporter=verbose", ...args);
    const tests = await vitest(
      "test/contract",
      "test/server/scaffold.test.ts",
      "test/reliability/fuzz-operations.test.ts",
      "test/mock/msw.test.ts",
    );
    expect(tests.status, tests.output.slice(-6000)).toBe(0);
    // Of the conformance suite, what iterates the operation table: the rules made per operation (auth.missing.*), the
    // coverage after them, and a rule that sees each operation of the contract's succeed (the shape rules), against
    // the reference server and the Prism mock. The fault catalogue is left out (its service answers 501 for an
    // operation it lacks, as any implementation does), and so are the rules about values, which no new operation
    // reaches and `npm test` runs.
    const conformance = await vitest(
      "test/conformance/conformance.test.ts",
      "--testNamePattern",
      String.raw`^(conformance of the reference server \(pglite\) (auth\.|errors\.|\w+\.shape|some rule saw)|conformance coverage|conformance of the Prism mock)`,
    );
    expect(conformance.status, conformance.output.slice(-6000)).toBe(0);
    for (const id of ["getSubscriber", "listSubscriberNotifications"]) {
      expect(conformance.output).toContain(`todo: no conformance rule covers ${id} yet`);
      expect(conformance.output).toMatch(new RegExp(`✓ .*auth\\.missing\\.${id}`));
      expect(tests.output).toMatch(new RegExp(`✓ .*${id} never fails and answers only what it declares`));
    }
    for (const id of ["searchSubscribers", "listNotifications", "getNotification", "patchSubscriber"]) {
      expect(conformance.output).toMatch(new RegExp(`✓ .*some rule saw ${id} answer with success`));
    }
  }, 600_000);
});
