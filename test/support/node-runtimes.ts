/**
 * The Nodes the packages are used under in the tests: 20, the oldest the packages' `engines` allow, and 24, the
 * current LTS that the README recommends. The one running the tests is used as it is; the other is installed from npm
 * with `npx node@<major>` (needs the registry or a warm npm cache), so the run tests both whichever Node starts it.
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";

function nodeBinary(major: number): string {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  const result = spawnSync("npx", ["-y", `node@${major}`, "-p", "process.execPath"], {
    cwd: tmpdir(),
    env: { ...process.env, npm_config_yes: "true" },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`npx node@${major} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

/** [name, a function giving the path of that Node's binary], for describe.each. */
export const nodeRuntimes: [string, () => string][] = [
  ["Node 20", () => nodeBinary(20)],
  ["Node 24", () => nodeBinary(24)],
];
