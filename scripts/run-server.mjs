#!/usr/bin/env node
/**
 * `npm start` and `npm run mock:stateful`: runs server/cli.ts from the sources, compiled first. tsx would run them as
 * they are, but its module hooks see every import of every package and cost about 1.5 s of a 2-core machine's start;
 * esbuild compiles the server's own files into one module (and a chunk for the demo generator, loaded only when it
 * runs) in about 0.1 s, leaving the packages to Node. Files are named by their content and written once, so processes
 * starting at once never read a half-written file. Plain JavaScript: this file is what runs before anything compiles.
 * Usage: node scripts/run-server.mjs [server command and arguments: see server/cli.ts]
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const outdir = join(root, "node_modules", ".cache", "novu-query", "server-build");

/**
 * The server finds its migrations, the spec and the docs beside its source files (`new URL(..., import.meta.url)`):
 * each file keeps its own source address in the bundle.
 */
const sourceAddresses = {
  name: "source-addresses",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => ({
      loader: "ts",
      contents: readFileSync(args.path, "utf8").replaceAll(
        "import.meta.url",
        JSON.stringify(pathToFileURL(args.path).href),
      ),
    }));
  },
};

const result = await build({
  entryPoints: { cli: join(root, "server", "cli.ts") },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outdir,
  entryNames: "[name]-[hash]",
  sourcemap: "linked",
  write: false,
  logLevel: "warning",
  plugins: [sourceAddresses],
});

await mkdir(outdir, { recursive: true });
const written = new Set();
for (const file of result.outputFiles) {
  written.add(basename(file.path));
  try {
    statSync(file.path);
  } catch {
    const partial = `${file.path}.${process.pid}.partial`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
}
// Builds of other versions of the sources go after a day (a process started from one may still load its chunks).
for (const entry of readdirSync(outdir)) {
  const path = join(outdir, entry);
  if (!written.has(entry) && Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { force: true });
}

process.setSourceMapsEnabled(true);
const entry = result.outputFiles.find((file) => /\/cli-[^/]+\.js$/.test(file.path));
if (!entry) throw new Error("esbuild wrote no server entry");
await import(pathToFileURL(entry.path).href);
