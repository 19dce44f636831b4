/**
 * Writes a stub handler for every operation of the spec that has none, and registers it in server/handlers/index.ts,
 * so that the server compiles and starts after the spec gains an operation (a new path, or a new method on a path
 * that has one). Part of `npm run build`; on its own: npm run scaffold. It never changes a handler that exists.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ScaffoldResult {
  written: string[];
}

/** The stub of one operation: typed by `handler()`, answering the 501 that the binding allows for stubs only. */
export function stubSource(id: string): string {
  return `import { handler } from "../define-handler.js";
import { NotImplementedError } from "../operation-errors.js";

// Written by \`npm run build\` (scripts/scaffold.ts) for an operation the spec gained. Replace the body: read the typed
// input, make one store call (reads through store.subscribers / store.notifications use the read replica when one is
// set), return { status, body } exactly as the spec declares it, and throw the declared errors with \`errors\`
// (\`throw errors.notFound(message)\`; messages live in server/messages.ts). Until then it answers 501.
export const ${id} = handler("${id}", async () => {
  throw new NotImplementedError("${id}");
});
`;
}

const importStatement = /^import [\s\S]*?from "([^"]+)";\n/gm;

/** Biome's order of import sources: packages, then relative paths farther up first, then by name. */
function sourceOrder(a: string, b: string): number {
  const rank = (source: string) => (source.startsWith(".") ? 100 - source.split("../").length : 0);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The index with `statement` among its imports, in Biome's order, every comment left where it was. */
function withImport(index: string, statement: string, source: string): string {
  const imports = [...index.matchAll(importStatement)];
  const before = imports.find((match) => sourceOrder(source, match[1] as string) < 0);
  if (before) return index.slice(0, before.index) + statement + index.slice(before.index);
  const last = imports.at(-1);
  const at = last ? (last.index ?? 0) + last[0].length : 0;
  return index.slice(0, at) + statement + index.slice(at);
}

export function scaffold(operationIds: readonly string[], handlersDir: string): ScaffoldResult {
  const indexPath = join(handlersDir, "index.ts");
  let index = readFileSync(indexPath, "utf8");
  const block = index.match(/export const handlers = \{([\s\S]*?)\} satisfies Handlers;/);
  if (!block?.[1]) throw new Error(`${indexPath} has no \`export const handlers = { ... } satisfies Handlers;\``);
  const registered = new Set(block[1].split(/[\s,]+/).filter(Boolean));
  const written: string[] = [];
  for (const id of operationIds.filter((operationId) => !registered.has(operationId))) {
    const file = join(handlersDir, `${id}.ts`);
    if (existsSync(file)) throw new Error(`${file} exists but is not registered in ${indexPath}`);
    writeFileSync(file, stubSource(id));
    index = withImport(index, `import { ${id} } from "./${id}.js";\n`, `./${id}.js`);
    index = index.replace(/(\n)(\} satisfies Handlers;)/, `$1  ${id},$1$2`);
    written.push(file);
  }
  if (written.length > 0) writeFileSync(indexPath, index);
  return { written };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { operationIds } = await import("../generated/operations.js");
  const handlersDir = fileURLToPath(new URL("../server/handlers/", import.meta.url));
  const { written } = scaffold(operationIds, handlersDir);
  if (written.length > 0) {
    console.log(
      `Wrote ${written.length} stub handler(s), each answering 501 until you implement it:\n` +
        written.map((file) => `  ${file}`).join("\n"),
    );
  } else if (!process.argv.includes("--quiet")) {
    console.log("Every operation in the spec has a handler; nothing to scaffold.");
  }
}
