/**
 * A parameter added to the spec alone can never be silently ignored (issue 43): in a temporary copy of the
 * repository, `tags` added to GET /v1/notifications among the others fails the typecheck at its operation's
 * declaration and the inputs test, each naming it, and the release gate wants it named as breaking for
 * implementations. With its declaration, its SQL and a CHANGELOG line (docs/contract.md, "Changing the contract"),
 * everything is green again, and the parameter is served: the store against the model, and the conformance suite
 * against the reference server, draw its values from the data.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepository, run, vitestIn } from "./copy-repository.js";
import { tagsChangelog, tagsDeclaration, tagsParameter, tagsReference, tagsSql } from "./new-parameter.js";

/** Inserts `text` before the first line of the file that starts with `before`. */
function insertBefore(file: string, before: string, text: string): void {
  const source = readFileSync(file, "utf8");
  const at = source.indexOf(before);
  expect(at, `${file} has "${before.trim()}"`).toBeGreaterThan(0);
  writeFileSync(file, source.slice(0, at) + text + source.slice(at));
}

const tsc = (copy: string) => run(copy, "npm", ["run", "typecheck"]);
const vitest = (copy: string, ...args: string[]) => vitestIn(copy, 400, ...args);
const gate = (copy: string) => run(copy, process.execPath, ["--import", "tsx", "scripts/diff.ts", "--gate"]);

describe("adding a query parameter (in a temporary copy of the repository)", () => {
  let copy: string;
  beforeAll(async () => {
    copy = copyRepository("add-parameter-");
    writeFileSync(join(copy, "openapi/components/parameters/ListTags.yaml"), tagsParameter);
    insertBefore(
      join(copy, "openapi/paths/v1_notifications.yaml"),
      "    - $ref: ../components/parameters/ListSeverity.yaml",
      tagsReference,
    );
    const build = await run(copy, "npm", ["run", "build:generated"]);
    expect(build.status, build.output).toBe(0);
  }, 120_000);
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("fails the typecheck at the declaration, naming the parameter, with the spec changed alone", async () => {
    const check = await tsc(copy);
    expect(check.status).not.toBe(0);
    expect(check.output).toMatch(
      /contract\/model\/inputs\/list-notifications\.ts\(\d+,\d+\): error TS\d+: Property 'tags' is missing/,
    );
  }, 120_000);

  it("fails the inputs test naming it, and the gate wants it named as breaking for implementations", async () => {
    const tests = await vitest(copy, "test/contract/inputs.test.ts");
    expect(tests.status).not.toBe(0);
    expect(tests.output).toContain(
      "listNotifications: the spec has query.tags, which contract/model/inputs/list-notifications.ts does not declare",
    );
    const refused = await gate(copy);
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain("no **Breaking** line naming `tags` on GET /v1/notifications");
  }, 180_000);

  it("is green again with its declaration, its SQL and a CHANGELOG line, and served as the model says", async () => {
    insertBefore(join(copy, "contract/model/inputs/list-notifications.ts"), "    transactionId: {", tagsDeclaration);
    insertBefore(join(copy, "server/store/notifications.ts"), "  transactionId: (eb, transactionId)", tagsSql);
    insertBefore(join(copy, "CHANGELOG.md"), "- Every error answer's schema pins", tagsChangelog);
    const build = await run(copy, "npm", ["run", "build:generated"]);
    expect(build.status, build.output).toBe(0);
    const check = await tsc(copy);
    expect(check.status, check.output).toBe(0);
    expect((await gate(copy)).status).toBe(0);
    // What reads the list's inputs: their declarations, the store against the model, and the conformance rules of the
    // list (and the oracle's reading of the data) against the reference server. The other operations did not change;
    // `npm test` runs every rule on them.
    const tests = await vitest(
      copy,
      "test/contract/inputs.test.ts",
      "test/server/store-model.test.ts",
      "test/conformance/conformance.test.ts",
      "--testNamePattern",
      String.raw`^(the inputs' declarations|the store against the model \(pglite\) lists notifications|conformance of the reference server \(pglite\) (list|oracle)\.)`,
      "--reporter=verbose",
    );
    expect(tests.status, tests.output.slice(-4000)).toBe(0);
    // The conformance suite sent tags drawn from the demo data's workflows to the reference server, and the model.
    expect(tests.output).toMatch(/✓ .*conformance of the reference server \(pglite\) > list\.filter\.tags/);
    expect(tests.output).toMatch(/✓ .*the store against the model \(pglite\) > lists notifications as the model does/);
  }, 600_000);
});
