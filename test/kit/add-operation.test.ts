/**
 * The backend team's loop, end to end in a temporary copy of the repository: add a method to a path the contract
 * has and a new path, as the README says, run `npm run build` (which scaffolds the stubs), and nothing needs a hand
 * edit for `npm run check` and the tests that every operation reaches to pass. The new operations show up as todo in
 * the conformance coverage, are fuzzed from their spec, and answer 501 until implemented.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepository, run, withoutConformanceCommand } from "./copy-repository.js";
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
    const tests = await run(
      copy,
      process.execPath,
      [
        join(copy, "node_modules/vitest/vitest.mjs"),
        "run",
        "--reporter=verbose",
        // The *.test-d.ts files were type-checked by `npm run check` above (tsconfig.json includes test/).
        "--typecheck.enabled=false",
        "test/contract",
        "test/server/scaffold.test.ts",
        // The rules that iterate the operation table; the fault catalogue does not (its service answers 501 for an
        // operation it lacks, as any implementation does).
        "test/conformance/conformance.test.ts",
        "test/reliability/fuzz-operations.test.ts",
        "test/mock/msw.test.ts",
        ...withoutConformanceCommand,
      ],
      {
        TEST_POSTGRES: "off",
        TEST_DATABASE_URL: "",
        TEST_REPLICA_URL: "",
        FUZZ_RUNS: "500",
        CI: "true",
        NO_COLOR: "1",
      },
    );
    expect(tests.status, tests.output.slice(-6000)).toBe(0);
    for (const id of ["getSubscriber", "listSubscriberNotifications"]) {
      expect(tests.output).toContain(`todo: no conformance rule covers ${id} yet`);
      expect(tests.output).toMatch(new RegExp(`✓ .*${id} never fails and answers only what it declares`));
    }
  }, 600_000);
});
