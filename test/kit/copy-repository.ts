/**
 * A temporary copy of the repository for the kit tests (add an operation, add a parameter): its files as a clone has
 * them, its packages linked as npm ci would, and a command runner.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { workspacePackages } from "../../scripts/packages.js";
import { runCommand } from "../support/run-command.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Runs a command in the copy: test/support/run-command.ts. */
export { runCommand as run };

/**
 * The copy's vitest on PGlite alone, with `fuzzRuns` requests per fuzzer. Without vitest's typecheck of the
 * *.test-d.ts files: each kit runs tsc over the copy before (tsconfig.json includes test/).
 */
export function vitestIn(copy: string, fuzzRuns: number, ...args: string[]) {
  return runCommand(copy, process.execPath, [join(copy, "node_modules/vitest/vitest.mjs"), "run", ...args], {
    // The type tests are `npm run check`'s there (vitest's `--typecheck.enabled` does not reach its projects).
    TEST_TYPECHECK: "off",
    TEST_POSTGRES: "off",
    TEST_DATABASE_URL: "",
    TEST_REPLICA_URL: "",
    FUZZ_RUNS: String(fuzzRuns),
    CI: "true",
    NO_COLOR: "1",
  });
}

/**
 * The repository's files as a clone has them (tracked, plus new files not ignored), and its installed packages as
 * `npm ci` would link them there: every package of ours links to the copy's own workspace folder (so the copy's
 * packages build against each other), every other one to this repository's node_modules (no install).
 */
export function copyRepository(prefix = "kit-"): string {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root });
  execFileSync("tar", ["-c", "--null", "-T", "-", "-f", join(copy, "files.tar")], { cwd: root, input: files });
  execFileSync("tar", ["-x", "-f", "files.tar"], { cwd: copy });
  rmSync(join(copy, "files.tar"));
  const modules = join(copy, "node_modules");
  mkdirSync(join(modules, "@novu-query"), { recursive: true });
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry !== "@novu-query") symlinkSync(join(root, "node_modules", entry), join(modules, entry));
  }
  for (const pkg of workspacePackages) {
    symlinkSync(join(copy, pkg.dir), join(modules, "@novu-query", pkg.name.replace("@novu-query/", "")));
  }
  return copy;
}
