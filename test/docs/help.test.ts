/** Every command of the repository and of its packages answers `--help` with its usage, and exits 0. */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCommand } from "../support/run-command.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsx = (script: string, ...args: string[]) => [process.execPath, "--import", "tsx", script, ...args];

/** [what the README calls it, the command line] */
const commands: [string, string[]][] = [
  ["novu-query-server (npm start)", tsx("server/cli.ts", "--help")],
  ["novu-query-server keys (npm run keys)", tsx("server/cli.ts", "keys", "--help")],
  ["novu-query-mock (npm run mock)", tsx("mock/cli.ts", "--help")],
  ["novu-query-conformance (npm run conformance)", tsx("conformance/cli.ts", "--help")],
  ["novu-query-express init", tsx("express/cli.ts", "--help")],
  ["npm run diff", tsx("scripts/diff.ts", "--help")],
  ["npm run release", tsx("scripts/release.ts", "--help")],
  ["npm run build:generated", tsx("scripts/build.ts", "--help")],
  ["npm run build:packages", tsx("scripts/build-packages.ts", "--help")],
  ["npm run scaffold", tsx("scripts/scaffold.ts", "--help")],
  ["npm run bench", tsx("bench/run.ts", "--help")],
  ["npm run bench:data", tsx("bench/data.ts", "--help")],
  ["npm run bench:startup", tsx("bench/startup.ts", "--help")],
  ["npm run bench:names", tsx("bench/name-patch.ts", "--help")],
  ["npm run soak", tsx("bench/soak.ts", "--help")],
  ["npm run mutation (its report)", tsx("scripts/mutation/report.ts", "--help")],
];

const run = ([command, ...args]: string[]) => runCommand(root, command as string, args, { DATABASE_URL: "" });

describe("--help", () => {
  it("prints every command's usage and exits 0, doing nothing else", async () => {
    const answers = await Promise.all(commands.map(([, line]) => run(line)));
    commands.forEach(([name], index) => {
      const { status, output } = answers[index] as { status: number | null; output: string };
      expect({ name, status }).toEqual({ name, status: 0 });
      expect(output, name).toMatch(/usage/i);
    });
  }, 120_000);
});
