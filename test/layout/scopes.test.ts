/**
 * The test files a run leaves out (test/scopes.ts) are what their names say: each pattern names files that exist, and
 * the files left out on Citus never reach a PostgreSQL database, so that leaving them out there loses no Citus run;
 * the files that mock a module are the ones run in a module graph of their own.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isolated, noPostgres, notRuntime, releaseProofs } from "../scopes.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The test files under test/, relative to the repository's root. */
const testFiles = readdirSync(join(root, "test"), { recursive: true })
  .map((path) => `test/${String(path)}`)
  .filter((path) => path.endsWith(".test.ts"));

/** The files a pattern of test/scopes.ts names: a path, a folder's every file (`dir/**`), or a `*` within a name. */
function matching(pattern: string): string[] {
  const expression = new RegExp(
    `^${pattern
      .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
      .replace("/**", "/.+")
      .replace(/\*/g, "[^/]*")}$`,
  );
  return testFiles.filter((path) => expression.test(path));
}

/** What in a test file's source opens, or may open, a PostgreSQL database. */
const reachesPostgres = [
  /\bdrivers\b/,
  /\bonCitus\b/,
  /createPostgresDatabase/,
  /emptyStores/,
  /\bDATABASE_URL\s*:/,
  /process\.env\.\w*DATABASE_URL/,
  /driver: "postgres"/,
  /databaseUrl/,
];

/** The npm scripts of the repository's package.json. */
const scripts: Record<string, string> = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;

describe("the test scopes", () => {
  it.each([...releaseProofs, ...notRuntime, ...noPostgres, ...isolated])(
    "%s names test files that exist",
    (pattern) => {
      expect(matching(pattern)).not.toEqual([]);
    },
  );

  it("npm test leaves out the release proofs, test:release runs them alone and test:all everything", () => {
    const excluded = [...(scripts.test ?? "").matchAll(/--exclude '([^']+)'/g)].map((match) => match[1]);
    expect(excluded, "npm test's --exclude globs are test/scopes.ts's releaseProofs").toEqual(releaseProofs);
    const folders = releaseProofs.map((pattern) => pattern.replace(/\/\*\*$/, ""));
    expect(scripts["test:release"], "test:release names releaseProofs' folders").toBe(
      `vitest run ${folders.join(" ")}`,
    );
    expect(scripts["test:all"]).toBe("vitest run");
  });

  it("runs every file that mocks a module in a module graph of its own, and only those", () => {
    const mocking = testFiles.filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(join(root, file), "utf8")));
    expect(mocking, "test/scopes.ts `isolated` lists the files that call vi.mock or vi.doMock").toEqual(
      isolated.flatMap(matching),
    );
  });

  it.each(noPostgres.flatMap(matching))("%s, left out on Citus, never reaches PostgreSQL", (file) => {
    const source = readFileSync(join(root, file), "utf8");
    expect(reachesPostgres.filter((pattern) => pattern.test(source)).map(String)).toEqual([]);
  });
});
