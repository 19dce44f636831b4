import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { workspacePackages } from "../../scripts/packages.js";

type Manifest = {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  engines?: { node?: string };
  files?: string[];
  repository?: { directory?: string };
  workspaces?: string[];
  dependencies?: Record<string, string>;
};
const read = (dir: string): Manifest =>
  JSON.parse(readFileSync(new URL(`../../${dir}/package.json`, import.meta.url), "utf8"));
const root = read(".");

describe("the package manifests", () => {
  it("are the workspaces of the root, which is private and lists the same folders as the build", () => {
    expect(root.private).toBe(true);
    expect(root.workspaces).toEqual(workspacePackages.map((pkg) => pkg.dir));
    expect(workspacePackages.map((pkg) => read(pkg.dir).name)).toEqual(workspacePackages.map((pkg) => pkg.name));
  });

  it("move in step: every package has the root's version, and depends on its siblings at exactly that version", () => {
    for (const pkg of workspacePackages) {
      const manifest = read(pkg.dir);
      expect(manifest.version, pkg.name).toBe(root.version);
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        if (workspacePackages.some((sibling) => sibling.name === dependency))
          expect(range, dependency).toBe(root.version);
      }
    }
  });

  it("are publishable: a license, the engines of the root, a files whitelist, the repository folder", () => {
    for (const pkg of workspacePackages) {
      const manifest = read(pkg.dir);
      expect(manifest.private, pkg.name).toBeUndefined();
      expect(manifest.license, pkg.name).toBe("MIT");
      expect(manifest.engines, pkg.name).toEqual(root.engines);
      expect(manifest.files, pkg.name).toEqual(["dist", "README.md", "LICENSE"]);
      expect(manifest.repository?.directory, pkg.name).toBe(pkg.dir);
    }
  });
});
