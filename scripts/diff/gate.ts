/**
 * The release gate: what a set of changes demands of the package version and of CHANGELOG.md. A breaking change (for
 * clients or for implementations) needs the major version raised over the base release (before 1.0.0: the minor)
 * and a CHANGELOG section for the new version with a **Breaking** line naming each broken operation; any other
 * change needs a CHANGELOG section for a version above the base (or `## Unreleased`).
 */
import { isBreaking, isDocumentationOnly } from "./compare.js";
import { describe, subjectOf } from "./describe.js";
import type { ClassifiedChange } from "./rules.js";

/** A CHANGELOG section's list items, each with its wrapped continuation lines joined to it. */
function listItems(section: string): string[] {
  const items: string[] = [];
  for (const line of section.split("\n")) {
    if (/^\s*[-*] /.test(line) || items.length === 0) items.push(line.trim());
    else if (line.trim() !== "") items[items.length - 1] += ` ${line.trim()}`;
  }
  return items;
}

/** Whether a CHANGELOG line names `subject`: in backticks, or as a word of its own. */
function names(line: string, subject: string): boolean {
  if (line.includes(`\`${subject}\``)) return true;
  const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w-])${escaped}([^\\w-]|$)`).test(line);
}

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
    const breakingLines = listItems(section ?? "").filter((item) => /\*\*Breaking\*\*/.test(item));
    // Each breaking change by its operation and by its own name (the parameter, the field, the value, the status):
    // a line that names the operation but another change does not account for this one.
    const missing = new Map<string, string>();
    for (const change of breaks) {
      const subject = subjectOf(change);
      const named = breakingLines.some((line) => line.includes(change.where) && names(line, subject));
      const sides = (["clients", "implementations"] as const)
        .filter((side) => change[side] === "breaking")
        .join(" and ");
      if (!named)
        missing.set(
          `${change.where}\n${subject}`,
          `\`${subject}\` on ${change.where} (${describe(change)}: breaking for ${sides})`,
        );
    }
    for (const what of missing.values()) {
      problems.push(`CHANGELOG.md has no **Breaking** line naming ${what} under ## ${version}`);
    }
  } else if (!section || compareVersions(version, base) <= 0) {
    problems.push(`non-breaking contract changes against ${base} need a CHANGELOG.md section for a version above it`);
  }
  return problems;
}
