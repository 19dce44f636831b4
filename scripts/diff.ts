/**
 * `npm run diff -- [<base>] [--format text|markdown|json] [--gate]`: compares the bundled spec of the working tree
 * (generated/openapi.json: run `npm run build` first) with a base, and classifies every change for clients and for
 * implementations (scripts/diff/rules.ts). The base is the last released contract (openapi/releases/<version>.json)
 * unless a released version or a git ref is given. `--gate` fails when the package version or CHANGELOG.md does not
 * account for the changes (scripts/diff/gate.ts); CI runs it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compareSpecs, renderReport } from "./diff/compare.js";
import { compareVersions, gateProblems } from "./diff/gate.js";
import { exitWithUsageIfAsked } from "./usage.js";

export const releasesDir = "openapi/releases";

/** The released versions with a snapshot, newest last. */
export function releasedVersions(dir = releasesDir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => /^\d+\.\d+\.\d+\.json$/.test(file))
    .map((file) => file.replace(/\.json$/, ""))
    .sort(compareVersions);
}

function loadBase(base: string | undefined): {
  label: string;
  version: string | undefined;
  spec: Record<string, unknown>;
} {
  const versions = releasedVersions();
  const chosen = base ?? versions.at(-1);
  if (!chosen) throw new Error(`no released snapshot in ${releasesDir}/ and no base given`);
  if (versions.includes(chosen)) {
    return {
      label: `release ${chosen}`,
      version: chosen,
      spec: JSON.parse(readFileSync(join(releasesDir, `${chosen}.json`), "utf8")),
    };
  }
  const text = execFileSync("git", ["show", `${chosen}:generated/openapi.json`], { encoding: "utf8" });
  return { label: `git ${chosen}`, version: undefined, spec: JSON.parse(text) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  exitWithUsageIfAsked(
    "Usage: npm run diff -- [<released version or git ref>] [--format text|markdown|json] [--gate]\n" +
      "  the changes of the built spec (generated/openapi.json) against the last release, or the version or ref given,\n" +
      "  for clients and for implementations; --gate fails when the version and CHANGELOG.md do not account for them",
  );
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { format: { type: "string", default: "text" }, gate: { type: "boolean", default: false } },
  });
  const format = values.format as "text" | "markdown" | "json";
  const base = loadBase(positionals[0]);
  const current = JSON.parse(readFileSync("generated/openapi.json", "utf8"));
  const changes = compareSpecs(base.spec, current);
  process.stdout.write(
    format === "json" ? `${JSON.stringify(changes, null, 2)}\n` : renderReport(changes, base.label, format),
  );
  if (values.gate) {
    if (!base.version) throw new Error("--gate compares with a released version, not a git ref");
    const version = JSON.parse(readFileSync("package.json", "utf8")).version as string;
    const problems = gateProblems(changes, base.version, version, readFileSync("CHANGELOG.md", "utf8"));
    for (const problem of problems) process.stderr.write(`gate: ${problem}\n`);
    if (problems.length > 0) process.exit(1);
    process.stderr.write(`gate: version ${version} and CHANGELOG.md account for the changes against ${base.label}\n`);
  }
}
