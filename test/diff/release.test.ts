/**
 * `npm run release` (scripts/release.ts) in a temporary git repository: versions raised in step, the CHANGELOG
 * section written from the diff, the snapshot stored, the commit and tag; and a bump too small for a break refused.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareSpecs } from "../../scripts/diff/compare.js";
import { gateProblems } from "../../scripts/diff/gate.js";
import { nextVersion, release, tagRelease } from "../../scripts/release.js";
import { response, small } from "./fixtures.js";

const work = mkdtempSync(join(tmpdir(), "novu-query-release-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function repository(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, "openapi", "releases"), { recursive: true });
  mkdirSync(join(dir, "generated"));
  mkdirSync(join(dir, "pkg"));
  writeFileSync(join(dir, "openapi", "releases", "0.1.0.json"), JSON.stringify(small()));
  const changed = small();
  delete response(changed).properties.note;
  writeFileSync(join(dir, "generated", "openapi.json"), JSON.stringify(changed));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "root", version: "0.1.0", workspaces: ["pkg"] }));
  writeFileSync(
    join(dir, "pkg", "package.json"),
    JSON.stringify({ name: "pkg", version: "0.1.0", dependencies: { root: "0.1.0", other: "^1.0.0" } }),
  );
  writeFileSync(join(dir, "CHANGELOG.md"), "# Changelog\n\nIntro.\n\n## 0.1.0 (2026-11-22)\n- first\n");
  writeFileSync(
    join(dir, "openapi", "openapi.yaml"),
    "openapi: 3.1.0\ninfo:\n  title: t\n  version: 0.1.0\npaths: {}\n",
  );
  writeFileSync(
    join(dir, "README.md"),
    "All packages at one version (now `0.1.0`); a database made by 0.1.0 is kept.\n",
  );
  execFileSync("git", ["init", "-q"], { cwd: dir });
  execFileSync("git", ["add", "."], { cwd: dir });
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base"], { cwd: dir });
  return dir;
}

describe("npm run release", () => {
  it("computes the next version", () => {
    expect(["major", "minor", "patch"].map((bump) => nextVersion("0.1.3", bump as never))).toEqual([
      "1.0.0",
      "0.2.0",
      "0.1.4",
    ]);
  });

  it("refuses a patch release of a breaking change", () => {
    const dir = repository("patch");
    expect(() => release(dir, "patch", "2026-12-01")).toThrow("release a minor version");
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version).toBe("0.1.0");
  });

  it("raises every version, writes the CHANGELOG from the diff, stores the snapshot, commits and tags", () => {
    const dir = repository("minor");
    expect(release(dir, "minor", "2026-12-01")).toBe("0.2.0");
    const pkg = JSON.parse(readFileSync(join(dir, "pkg", "package.json"), "utf8"));
    expect([JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version, pkg.version]).toEqual([
      "0.2.0",
      "0.2.0",
    ]);
    expect(pkg.dependencies).toEqual({ root: "0.2.0", other: "^1.0.0" });
    const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
    expect(changelog).toContain(
      "## 0.2.0 (2026-12-01)\n\n### Contract\n- **Breaking** GET /items: response-field-removed (remove `note`), breaks clients\n",
    );
    expect(changelog.indexOf("## 0.2.0")).toBeLessThan(changelog.indexOf("## 0.1.0"));
    expect(JSON.parse(readFileSync(join(dir, "openapi", "releases", "0.2.0.json"), "utf8")).info.version).toBe("0.2.0");
    expect(readFileSync(join(dir, "openapi", "openapi.yaml"), "utf8")).toContain(
      "info:\n  title: t\n  version: 0.2.0\n",
    );
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe(
      "All packages at one version (now `0.2.0`); a database made by 0.1.0 is kept.\n",
    );
    // The gate accepts what the release wrote, against the old release.
    const before = JSON.parse(readFileSync(join(dir, "openapi", "releases", "0.1.0.json"), "utf8"));
    const after = JSON.parse(readFileSync(join(dir, "generated", "openapi.json"), "utf8"));
    expect(gateProblems(compareSpecs(before, after), "0.1.0", "0.2.0", changelog)).toEqual([]);
    expect(tagRelease(dir)).toBe("0.2.0");
    expect(execFileSync("git", ["tag"], { cwd: dir, encoding: "utf8" }).trim()).toBe("v0.2.0");
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" })).toBe("");
  });

  it("releases the version the packages already carry: dates its section, says it is released everywhere", () => {
    const dir = repository("current");
    for (const file of ["package.json", "pkg/package.json"]) {
      const manifest = JSON.parse(readFileSync(join(dir, file), "utf8"));
      writeFileSync(join(dir, file), JSON.stringify({ ...manifest, version: "0.2.0" }));
    }
    const heading = "## 0.2.0 (not released yet)\n- **Breaking** GET /items: no `note` (written by hand)\n\n";
    const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8").replace("## 0.1.0", `${heading}## 0.1.0`);
    writeFileSync(join(dir, "CHANGELOG.md"), changelog);
    writeFileSync(join(dir, "README.md"), "All packages at one version (`0.2.0`, not released yet).\n");
    expect(release(dir, "current", "2026-12-02")).toBe("0.2.0");
    const released = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
    expect(released).toContain("## 0.2.0 (2026-12-02)\n- **Breaking** GET /items: no `note` (written by hand)\n");
    expect(released).not.toContain("not released yet");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("All packages at one version (now `0.2.0`).\n");
    expect(() => release(dir, "current", "2026-12-03")).toThrow("0.2.0 is released already: bump it");
  });
});
