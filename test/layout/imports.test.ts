/**
 * The import rules of the workspace: a package reaches another only through its published name (what a user of the
 * tarballs gets), never by a relative path into its folder, and no module imports itself back through others. The
 * workspace's own tooling (scripts/, bench/) and tests may read a package's internals by path, as white-box tests do;
 * generated/ is the contract's (its build output of the spec).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { workspacePackages } from "../../scripts/packages.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const packageDirs = workspacePackages.map((pkg) => pkg.dir);
/** Folders that belong to a package though they sit beside it: the contract's build output of the spec. */
const partOf: Record<string, string> = { generated: "contract" };
/** Folders never entered: installs, build output, and what test runs write while this test reads (a test cluster's data
 * under .data/ changes under a walk, so hidden folders are not entered at all). */
const ignored = new Set(["node_modules", "dist", "test-output", "backend-app", "host-apps", "reports", "coverage"]);

/** Every TypeScript module of the repository, relative to its root. */
function modules(dir = ""): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name.startsWith(".") || ignored.has(entry.name) ? [] : modules(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const paths: Record<string, string[]> = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")).compilerOptions
  .paths;

/** The module an import names, relative to the root; undefined for a module outside the repository. */
function resolveImport(from: string, specifier: string): string | undefined {
  const mapped = paths[specifier]?.[0];
  const target = mapped ? join(root, mapped) : specifier.startsWith(".") ? resolve(root, dirname(from), specifier) : "";
  if (!target) return undefined;
  for (const candidate of [target, target.replace(/\.js$/, ".ts"), join(target, "index.ts")]) {
    if (existsSync(candidate) && /\.(ts|json)$/.test(candidate)) return relative(root, candidate);
  }
  return undefined;
}

function importsOf(file: string): { specifier: string; target: string | undefined }[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
  return importedFiles.map(({ fileName }) => ({ specifier: fileName, target: resolveImport(file, fileName) }));
}

const owner = (file: string) => {
  const top = file.split("/")[0] as string;
  return partOf[top] ?? (packageDirs.includes(top) ? top : undefined);
};

describe("the workspace's imports", () => {
  const graph = new Map(modules().map((file) => [file, importsOf(file)]));

  it("reach another package only by its name, never by a relative path into its folder", () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter(({ specifier, target }) => specifier.startsWith(".") && target !== undefined)
        .filter(({ target }) => {
          const from = owner(file);
          const to = owner(target as string);
          return to !== undefined && from !== undefined && from !== to;
        })
        .map(({ specifier }) => `${file} imports ${specifier}`),
    );
    expect(crossing).toEqual([]);
  });

  it("have no loop: no module imports itself back through others", () => {
    const loops: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        loops.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const { target } of graph.get(file) ?? []) {
        if (target?.endsWith(".ts")) visit(target, [...trail, file]);
      }
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(loops).toEqual([]);
  });
});
