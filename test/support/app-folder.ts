/**
 * An app in a temporary folder, as a team outside the repository has one: its files and package.json written, its
 * packages installed with npm, commands run in it (exit code and output, or the output and an error naming the
 * command), and the versions this repository tests with, for its installs.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** `name@version` of the package as this repository has it installed, so the app meets what the tests here met. */
export const ours = (name: string): string =>
  `${name}@${JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version}`;

export function appFolder(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const run = (command: string, args: string[], cwd = dir) => {
    const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };
  const mustRun = (command: string, args: string[], cwd = dir): string => {
    const { status, output } = run(command, args, cwd);
    if (status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${status}:\n${output}`);
    return output;
  };
  /** Writes the app's files (path -> text) and a package.json of an ES module app named `name`. */
  const write = (name: string, files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name, private: true, type: "module" })}\n`);
  };
  /** `npm install` of the packages (names, versions or tarballs), as quietly and offline as npm allows. */
  const install = (packages: string[]) =>
    mustRun("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packages]);
  return { dir, run, mustRun, write, install };
}
