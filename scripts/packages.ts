/** The published packages of this workspace: where each lives and what its build copies beside the compiled code. */

export interface WorkspacePackage {
  /** Folder under the repository root, which is also the npm workspace. */
  dir: string;
  name: string;
  /** tsc projects to compile, in order (paths relative to `dir`). */
  projects: string[];
  /** Files copied into the package: [from (relative to the repository root), to (relative to `dir`)]. */
  assets: [string, string][];
  /** Folders under dist/ that hold CommonJS (they get a package.json saying so). */
  commonJsDirs?: string[];
}

export const workspacePackages: WorkspacePackage[] = [
  {
    dir: "contract",
    name: "@novu-query/contract",
    projects: ["tsconfig.build.json", "tsconfig.cjs.json"],
    // openapi.json is emitted by tsc beside the code that imports it (dist/esm/generated/), and exported from there.
    assets: [["generated/openapi.yaml", "dist/openapi.yaml"]],
    commonJsDirs: ["dist/cjs"],
  },
  {
    dir: "express",
    name: "@novu-query/express",
    projects: ["tsconfig.build.json"],
    assets: [],
  },
  {
    dir: "mock",
    name: "@novu-query/mock",
    projects: ["tsconfig.build.json"],
    assets: [["generated/openapi.json", "dist/generated/openapi.json"]],
  },
  {
    dir: "conformance",
    name: "@novu-query/conformance",
    projects: ["tsconfig.build.json"],
    assets: [],
  },
  {
    dir: "server",
    name: "@novu-query/server",
    projects: ["tsconfig.build.json"],
    assets: [
      ["generated/openapi.json", "dist/generated/openapi.json"],
      ["generated/openapi.yaml", "dist/generated/openapi.yaml"],
      ["generated/docs/index.html", "dist/generated/docs/index.html"],
      ["server/store/migrations", "dist/server/store/migrations"],
      ["server/store/citus", "dist/server/store/citus"],
    ],
  },
];
