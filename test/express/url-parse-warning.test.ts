/**
 * Node 24 walks the caller's stack on every `url.parse()` until it has printed DEP0169 once, and never prints it for a
 * call from node_modules, where express-openapi-validator parses every request's URL (express/url-parse-warning.ts).
 * Whether Node takes the warning as given shows in a fresh process: a first-party `url.parse()` afterwards prints
 * nothing. Node 20 prints no such warning at all, so these run on Node 24 (CI's second run).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const warns = Number(process.versions.node.split(".")[0]) >= 24;
const module = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../express/${path}`, import.meta.url)));

/** What a fresh Node process prints on stderr for an ES module's text (run through tsx, as the tests are). */
function stderrOf(script: string): string {
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stderr;
}

describe.skipIf(!warns)("url.parse()'s deprecation warning, settled once (Node 24)", () => {
  it("is printed for the app's own first url.parse() when nothing settled it (the check can fail)", () => {
    expect(stderrOf(`import { parse } from "node:url"; parse("/a");`)).toContain("DEP0169");
  });

  it("is taken as given once settled, and every other deprecation is still printed", () => {
    const stderr = stderrOf(
      `import { settleUrlParseWarning } from ${module("url-parse-warning.ts")};
       import { parse } from "node:url";
       settleUrlParseWarning();
       parse("/a");
       new Buffer(1);`,
    );
    expect(stderr).not.toContain("DEP0169");
    expect(stderr).toContain("DEP0005");
  });

  it("is settled by creating the router, which mounts the validator that calls url.parse() on every request", () => {
    const stderr = stderrOf(
      `import { createRouter } from ${module("router.ts")};
       import { parse } from "node:url";
       const quiet = { info() {}, warn() {}, error() {} };
       createRouter({ handlers: {}, logger: quiet });
       parse("/a");`,
    );
    expect(stderr).not.toContain("DEP0169");
  });
});
