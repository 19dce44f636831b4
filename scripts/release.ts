/**
 * `npm run release -- <major|minor|patch|current>`, then `npm run release -- tag`: releases the contract as it is
 * built now. Between releases the packages carry the version the next release will have, once the contract has
 * changed (the diff gate asks for it), and every document says it is "not released yet": the CHANGELOG's section
 * heading, the READMEs' "`x.y.z`, not released yet", the docs' Changes section. `current` releases that version.
 *  1. refuses a bump too small for the changes since the last release (a break needs major; minor before 1.0.0);
 *  2. raises the version of the root and of every package in step (and their exact sibling dependencies);
 *  3. dates the CHANGELOG.md section of the version ("## 0.3.0 (not released yet)" or "## Unreleased"), or writes one
 *     from the diff (breaking lines marked **Breaking**) above the previous one, for the person releasing to read;
 *  4. writes the version into the spec's info.version and the READMEs' "now `x.y.z`", and stores generated/openapi.json
 *     (with that info.version) as openapi/releases/<version>.json, the base of the next `npm run diff`;
 *  5. then, once the section is read and edited, `npm run release -- tag` commits the release and tags v<version>.
 * Run `npm run build` first; afterwards run `npm install` (package-lock.json's versions) and `npm run build` again (the
 * docs' Changes section), which the tag step commits too.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compareSpecs, isBreaking, isDocumentationOnly } from "./diff/compare.js";
import { allowsBreaking, breakingBump, compareVersions, parseVersion } from "./diff/gate.js";
import type { ClassifiedChange } from "./diff/rules.js";
import { releasedVersions, releasesDir } from "./diff.js";
import { exitWithUsageIfAsked } from "./usage.js";

export type Bump = "major" | "minor" | "patch" | "current";

export function nextVersion(version: string, bump: Bump): string {
  if (bump === "current") return version;
  const [major, minor, patch] = parseVersion(version);
  if (bump === "major") return `${major + 1}.0.0`;
  if (bump === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The CHANGELOG section for a release: one line per operation and rule, breaking ones first and marked. */
export function changelogFromDiff(version: string, date: string, changes: ClassifiedChange[]): string {
  const lines = new Map<string, boolean>();
  for (const change of changes) {
    if (isDocumentationOnly(change)) continue;
    const breaking = isBreaking(change);
    const who = [change.clients === "breaking" && "clients", change.implementations === "breaking" && "implementations"]
      .filter(Boolean)
      .join(" and ");
    const line = `- ${breaking ? "**Breaking** " : ""}${change.where}: ${change.rule} (${change.action} \`${change.key}\`)${breaking ? `, breaks ${who}` : ""}`;
    lines.set(line, breaking);
  }
  const sorted = [...lines].sort((a, b) => Number(b[1]) - Number(a[1])).map(([line]) => line);
  const body = sorted.length > 0 ? sorted.join("\n") : "- Documentation only.";
  return `## ${version} (${date})\n\n### Contract\n${body}\n`;
}

/** The packages whose version moves with the root's (the workspaces of package.json). */
function manifests(root: string): string[] {
  const workspaces = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")).workspaces ?? []) as string[];
  return ["package.json", ...workspaces.map((dir) => join(dir, "package.json"))].map((file) => join(root, file));
}

export function release(root: string, bump: Bump, date: string): string {
  const current = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;
  const version = nextVersion(current, bump);
  const last = releasedVersions(join(root, releasesDir)).at(-1);
  if (last && compareVersions(version, last) <= 0) throw new Error(`${version} is released already: bump it`);
  const spec = JSON.parse(readFileSync(join(root, "generated/openapi.json"), "utf8"));
  const changes = last
    ? compareSpecs(JSON.parse(readFileSync(join(root, releasesDir, `${last}.json`), "utf8")), spec)
    : [];
  if (last && changes.some(isBreaking) && !allowsBreaking(last, version)) {
    throw new Error(
      `the changes since ${last} break clients or implementations: release a ${breakingBump(last)} version`,
    );
  }
  const names = new Set<string>();
  for (const file of manifests(root)) names.add(JSON.parse(readFileSync(file, "utf8")).name);
  for (const file of manifests(root)) {
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    manifest.version = version;
    for (const field of ["dependencies", "devDependencies", "peerDependencies"]) {
      for (const name of Object.keys(manifest[field] ?? {})) if (names.has(name)) manifest[field][name] = version;
    }
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  const changelogFile = join(root, "CHANGELOG.md");
  const changelog = existsSync(changelogFile) ? readFileSync(changelogFile, "utf8") : "# Changelog\n";
  const unreleased = new RegExp(`^## (?:${version.replaceAll(".", "\\.")} \\(not released yet\\)|Unreleased)$`, "m");
  const section = changelogFromDiff(version, date, changes);
  const at = changelog.search(/^## /m);
  writeFileSync(
    changelogFile,
    unreleased.test(changelog)
      ? changelog.replace(unreleased, `## ${version} (${date})`)
      : at === -1
        ? `${changelog.trimEnd()}\n\n${section}`
        : `${changelog.slice(0, at)}${section}\n${changelog.slice(at)}`,
  );
  // The spec's info.version and the READMEs' "now `x.y.z`" name the packages' version (test/docs/versions.test.ts).
  const specSource = join(root, "openapi", "openapi.yaml");
  if (existsSync(specSource)) {
    const text = readFileSync(specSource, "utf8");
    writeFileSync(specSource, text.replace(/^(info:\n(?:[ \t].*\n)*?[ \t]+version:)\s*\S+$/m, `$1 ${version}`));
  }
  for (const readme of readmes(root)) {
    const text = readFileSync(readme, "utf8");
    writeFileSync(
      readme,
      text
        .replace(/`\d+\.\d+\.\d+`, not released yet/g, `now \`${version}\``)
        .replace(/\bnow `\d+\.\d+\.\d+`/g, `now \`${version}\``),
    );
  }
  writeFileSync(
    join(root, releasesDir, `${version}.json`),
    JSON.stringify({ ...spec, info: { ...spec.info, version } }),
  );
  return version;
}

/** The README of the root and of every package. */
export function readmes(root: string): string[] {
  return manifests(root)
    .map((manifest) => join(manifest, "..", "README.md"))
    .filter((readme) => existsSync(readme));
}

/** Commits the release files of the current version and tags it v<version>. */
export function tagRelease(root: string): string {
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;
  if (!existsSync(join(root, releasesDir, `${version}.json`))) {
    throw new Error(`no ${releasesDir}/${version}.json: run npm run release -- <major|minor|patch> first`);
  }
  // The lockfile holds the packages' versions, and the rendered docs' Changes section names the release.
  const derived = ["package-lock.json", "generated"].filter((path) => existsSync(join(root, path)));
  const sources = [join(root, "openapi", "openapi.yaml"), ...readmes(root)].filter((path) => existsSync(path));
  execFileSync("git", ["add", "CHANGELOG.md", releasesDir, ...manifests(root), ...sources, ...derived], { cwd: root });
  execFileSync("git", ["commit", "-qm", `Release ${version}`], { cwd: root });
  execFileSync("git", ["tag", `v${version}`], { cwd: root });
  return version;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  exitWithUsageIfAsked(
    "Usage: npm run release -- <major|minor|patch|current>   then, after reading the CHANGELOG section: npm run release -- tag",
  );
  const { positionals } = parseArgs({ allowPositionals: true });
  const step = positionals[0];
  if (step === "tag") {
    const version = tagRelease(process.cwd());
    process.stdout.write(`Committed and tagged v${version}: push both, then npm publish --workspaces.\n`);
  } else if (step === "major" || step === "minor" || step === "patch" || step === "current") {
    const version = release(process.cwd(), step, new Date().toISOString().slice(0, 10));
    process.stdout.write(
      `Prepared ${version}: read and edit its CHANGELOG.md section, run npm install (package-lock.json) and npm run build (the docs' Changes section), then npm run release -- tag.\n`,
    );
  } else {
    process.stderr.write("usage: npm run release -- <major|minor|patch|current>   then   npm run release -- tag\n");
    process.exit(2);
  }
}
