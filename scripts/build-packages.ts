/**
 * Compiles every published package (ES modules, declarations, source maps; the contract also as CommonJS) into its
 * dist/, and copies beside the code what it reads at run time (the bundled spec, the docs, the migrations) and the
 * LICENSE. The contract is built first: the conformance package compiles against its declarations.
 * Usage: tsx scripts/build-packages.ts
 */
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { workspacePackages } from "./packages.js";
import { runCli } from "./run-cli.js";

const root = fileURLToPath(new URL("../", import.meta.url));

for (const pkg of workspacePackages) {
  const dir = join(root, pkg.dir);
  rmSync(join(dir, "dist"), { recursive: true, force: true });
  for (const project of pkg.projects) runCli("tsc", ["-p", join(dir, project)]);
  for (const commonJsDir of pkg.commonJsDirs ?? []) {
    writeFileSync(join(dir, commonJsDir, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
  }
  for (const [from, to] of pkg.assets) cpSync(join(root, from), join(dir, to), { recursive: true });
  cpSync(join(root, "LICENSE"), join(dir, "LICENSE"));
  console.log(`Built ${pkg.name} in ${pkg.dir}/dist`);
}
