/**
 * Version numbers that cannot drift: the spec's info.version (the rendered docs' title) and every README's
 * "now `x.y.z`" are the packages' version, which `npm run release` writes into all of them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readmes } from "../../scripts/release.js";

const root = new URL("../../", import.meta.url).pathname;
const version = JSON.parse(readFileSync(`${root}package.json`, "utf8")).version as string;

describe("the version the documents state", () => {
  it("is the packages' version in the spec, as written and as bundled", () => {
    expect(parse(readFileSync(`${root}openapi/openapi.yaml`, "utf8")).info.version).toBe(version);
    expect(JSON.parse(readFileSync(`${root}generated/openapi.json`, "utf8")).info.version).toBe(version);
  });

  it.each(readmes(root).map((file) => [file.slice(root.length)]))("is the packages' version in %s", (file) => {
    const stated = [...readFileSync(`${root}${file}`, "utf8").matchAll(/\bnow `(\d+\.\d+\.\d+)`/g)].map((m) => m[1]);
    for (const claim of stated) expect(claim, `${file} says the packages are at ${claim}`).toBe(version);
  });

  it("is stated in the root README and the contract's (its npm page)", () => {
    for (const file of ["README.md", "contract/README.md"]) {
      expect(readFileSync(`${root}${file}`, "utf8")).toContain(`now \`${version}\``);
    }
  });
});
