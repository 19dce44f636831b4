/**
 * The release gate: what a set of changes demands of the package version and of CHANGELOG.md. A breaking change (for
 * clients or for implementations) needs the major version raised over the base release (before 1.0.0: the minor)
 * and a CHANGELOG section for the new version with a **Breaking** line naming each broken operation; any other
 * change needs a CHANGELOG section for a version above the base (or `## Unreleased`).
 */
import type { ClassifiedChange } from "./compare.js";

function parse(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) throw new Error(`not a version: ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Is `version` a breaking-change release over `base` (major raised; minor raised before 1.0.0)? */
export function allowsBreaking(base: string, version: string): boolean {
  const [bMajor, bMinor] = parse(base);
  const [major, minor] = parse(version);
  return bMajor === 0 && major === 0 ? minor > bMinor : major > bMajor;
}

function above(base: string, version: string): boolean {
  const a = parse(base);
  const b = parse(version);
  for (let i = 0; i < 3; i++) if ((b[i] as number) !== (a[i] as number)) return (b[i] as number) > (a[i] as number);
  return false;
}

/** The text of the CHANGELOG section with this heading (`## 0.2.0 ...` or `## Unreleased`), or undefined. */
export function changelogSection(changelog: string, heading: string): string | undefined {
  const sections = changelog.split(/^## /m).slice(1);
  return sections.find((section) => section.toLowerCase().startsWith(heading.toLowerCase()));
}

/** The problems that stop the changes from shipping at `version`; empty when they may. */
export function gateProblems(changes: ClassifiedChange[], base: string, version: string, changelog: string): string[] {
  const substantive = changes.filter((c) => c.clients !== "documentation" || c.implementations !== "documentation");
  if (substantive.length === 0) return [];
  const problems: string[] = [];
  const breaks = substantive.filter((c) => c.clients === "breaking" || c.implementations === "breaking");
  const section = changelogSection(changelog, version) ?? changelogSection(changelog, "Unreleased");
  if (breaks.length > 0) {
    if (!allowsBreaking(base, version)) {
      problems.push(
        `${breaks.length} breaking change(s) against ${base}, but the version is ${version}: raise the ${parse(base)[0] === 0 ? "minor" : "major"} version (npm run release -- ${parse(base)[0] === 0 ? "minor" : "major"})`,
      );
    }
    const breakingLines = (section ?? "").split("\n").filter((line) => /\*\*Breaking\*\*/.test(line));
    for (const where of new Set(breaks.map((c) => c.where))) {
      if (!breakingLines.some((line) => line.includes(where))) {
        problems.push(`CHANGELOG.md has no **Breaking** line naming ${where} under ## ${version}`);
      }
    }
  } else if (!section || !above(base, version)) {
    problems.push(`non-breaking contract changes against ${base} need a CHANGELOG.md section for a version above it`);
  }
  return problems;
}
