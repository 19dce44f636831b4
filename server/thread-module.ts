/**
 * The module a worker thread runs, beside the module that starts it: compiled (.js) when the caller is, and run from
 * the sources, its TypeScript bundled with esbuild once per process (tens of milliseconds; tsx in the thread cost a
 * third of a second, and on Node 20 a worker does not inherit tsx's loader at all) into a file named by its content
 * under node_modules/.cache.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { threadId } from "node:worker_threads";

const compiled = new Map<string, Promise<URL>>();

/** `name` is the thread module's file name without its extension, in the folder of `callerUrl` (`import.meta.url`). */
export function threadModule(callerUrl: string, name: string): Promise<URL> {
  if (!callerUrl.endsWith(".ts")) return Promise.resolve(new URL(`./${name}.js`, callerUrl));
  const source = fileURLToPath(new URL(`./${name}.ts`, callerUrl));
  let module = compiled.get(source);
  if (!module) {
    module = compile(source, name);
    compiled.set(source, module);
  }
  return module;
}

async function compile(source: string, name: string): Promise<URL> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [source],
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    logLevel: "warning",
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  const dir = fileURLToPath(new URL(`../node_modules/.cache/novu-query/${name}/`, import.meta.url));
  const file = join(dir, `${name}-${hash}.mjs`);
  if (!existsSync(file)) {
    await mkdir(dir, { recursive: true });
    const partial = `${file}.${process.pid}.${threadId}.partial`;
    await writeFile(partial, code);
    await rename(partial, file);
  }
  return pathToFileURL(file);
}
