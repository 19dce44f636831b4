/**
 * The release gate: what a set of changes demands of the package version and of CHANGELOG.md. A breaking change (for
 * clients or for implementations) needs the major version raised over the base release (before 1.0.0: the minor)
 * and a CHANGELOG section for the new version with a **Breaking** line naming each broken operation; any other
 * change needs a CHANGELOG section for a version above the base (or `## Unreleased`).
 */
import { isBreaking, isDocumentationOnly } from "./compare.js";
import type { ClassifiedChange } from "./rules.js";

export function parseVersion(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) throw new Error(`not a version: ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Is `version` a breaking-change release over `base` (major raised; minor raised before 1.0.0)? */
export function allowsBreaking(base: string, version: string): boolean {
  const [bMajor, bMinor] = parseVersion(base);
  const [major, minor] = parseVersion(version);
  return bMajor === 0 && major === 0 ? minor > bMinor : major > bMajor;
}

/** The bump a breaking change over `base` needs: the major, or before 1.0.0 the minor. */
export function breakingBump(base: string): "major" | "minor" {
  return parseVersion(base)[0] === 0 ? "minor" : "major";
}

/** Semantic-version order: negative when `a` comes before `b`, 0 when equal, positive after. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return 0;
}

/** The text of the CHANGELOG section with this heading (`## 0.2.0 ...` or `## Unreleased`), or undefined. */
export function changelogSection(changelog: string, heading: string): string | undefined {
  const sections = changelog.split(/^## /m).slice(1);
  return sections.find((section) => section.toLowerCase().startsWith(heading.toLowerCase()));
}

/** The problems that stop the changes from shipping at `version`; empty when they may. */
export function gateProblems(changes: ClassifiedChange[], base: string, version: string, changelog: string): string[] {
  const substantive = changes.filter((change) => !isDocumentationOnly(change));
  if (substantive.length === 0) return [];
  const problems: string[] = [];
  const breaks = substantive.filter(isBreaking);
  const section = changelogSection(changelog, version) ?? changelogSection(changelog, "Unreleased");
  if (breaks.length > 0) {
    if (!allowsBreaking(base, version)) {
      problems.push(
        `${breaks.length} breaking change(s) against ${base}, but the version is ${version}: raise the ${breakingBump(base)} version (npm run release -- ${breakingBump(base)})`,
      );
    }
    const breakingLines = (section ?? "").split("\n").filter((line) => /\*\*Breaking\*\*/.test(line));
    for (const where of new Set(breaks.map((c) => c.where))) {
      if (!breakingLines.some((line) => line.includes(where))) {
        problems.push(`CHANGELOG.md has no **Breaking** line naming ${where} under ## ${version}`);
      }
    }
  } else if (!section || compareVersions(version, base) <= 0) {
    problems.push(`non-breaking contract changes against ${base} need a CHANGELOG.md section for a version above it`);
  }
  return problems;
}
