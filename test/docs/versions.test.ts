/**
 * Version numbers that cannot drift: the spec's info.version (the rendered docs' title) and every README's
 * "now `x.y.z`" or "`x.y.z`, not released yet" are the packages' version, which `npm run release` writes into all of
 * them; and whether that version is released (openapi/releases/ holds it) is said alike by the READMEs, the CHANGELOG
 * and the rendered docs' Changes section.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { releasedVersions } from "../../scripts/diff.js";
import { readmes } from "../../scripts/release.js";

const root = new URL("../../", import.meta.url).pathname;
const version = JSON.parse(readFileSync(`${root}package.json`, "utf8")).version as string;
const released = releasedVersions(`${root}openapi/releases`).includes(version);

describe("the version the documents state", () => {
  it("is the packages' version in the spec, as written and as bundled", () => {
    expect(parse(readFileSync(`${root}openapi/openapi.yaml`, "utf8")).info.version).toBe(version);
    expect(JSON.parse(readFileSync(`${root}generated/openapi.json`, "utf8")).info.version).toBe(version);
  });

  it.each(readmes(root).map((file) => [file.slice(root.length)]))("is the packages' version in %s", (file) => {
    const text = readFileSync(`${root}${file}`, "utf8");
    const stated = [...text.matchAll(/\bnow `(\d+\.\d+\.\d+)`|`(\d+\.\d+\.\d+)`, not released yet/g)];
    for (const [claim, now, unreleased] of stated) {
      expect(now ?? unreleased, `${file} says the packages are at ${claim}`).toBe(version);
      expect(unreleased === undefined, `${file} says "${claim}"`).toBe(released);
    }
  });

  it("is stated in the root README and the contract's (its npm page), released or not as the CHANGELOG says", () => {
    const stated = released ? `now \`${version}\`` : `\`${version}\`, not released yet`;
    for (const file of ["README.md", "contract/README.md"]) {
      expect(readFileSync(`${root}${file}`, "utf8")).toContain(stated);
    }
    const changelog = readFileSync(`${root}CHANGELOG.md`, "utf8");
    expect(changelog).toMatch(
      released ? new RegExp(`^## ${version} \\(\\d{4}-`, "m") : `## ${version} (not released yet)`,
    );
    const docs = readFileSync(`${root}generated/docs/index.html`, "utf8");
    expect(docs.includes(`${version} (not released yet)`)).toBe(!released);
  });
});
