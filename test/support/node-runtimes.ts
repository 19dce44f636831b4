/**
 * The Nodes the packages are used under in the tests: this run's (20, the oldest the packages' `engines` allow) and
 * the current LTS, 24, installed from npm with `npx node@24` (needs the registry or a warm npm cache).
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";

function lts(): string {
  const result = spawnSync("npx", ["-y", "node@24", "-p", "process.execPath"], {
    cwd: tmpdir(),
    env: { ...process.env, npm_config_yes: "true" },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`npx node@24 failed:\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

/** [name, a function giving the path of that Node's binary], for describe.each. */
export const nodeRuntimes: [string, () => string][] = [
  ["Node 20", () => process.execPath],
  ["Node 24", lts],
];
