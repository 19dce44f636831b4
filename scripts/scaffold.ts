/**
 * Writes a stub handler for every operation of the spec that has none, and registers it in server/handlers/index.ts,
 * so that the server compiles and starts after the spec gains an operation. Usage: npm run scaffold
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ScaffoldResult {
  written: string[];
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
    writeFileSync(
      file,
      `import type { Handler } from "../handler-types.js";\n` +
        `import { notImplemented } from "./not-implemented.js";\n\n` +
        `// Written by \`npm run scaffold\`. Replace the stub with the implementation: read the typed input, make one store call,\n` +
        `// return { status, body }; throw ApiError for the error answers the spec declares.\n` +
        `export const ${id}: Handler<"${id}"> = notImplemented("${id}");\n`,
    );
    index = index.replace(/(\n)(export const handlers = \{)/, `\nimport { ${id} } from "./${id}.js";$1$2`);
    index = index.replace(/(\n)(\} satisfies Handlers;)/, `$1  ${id},$1$2`);
    written.push(file);
  }
  writeFileSync(indexPath, index);
  return { written };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { operationIds } = await import("../generated/operations.js");
  const handlersDir = fileURLToPath(new URL("../server/handlers/", import.meta.url));
  const { written } = scaffold(operationIds, handlersDir);
  console.log(
    written.length
      ? `Wrote ${written.length} stub handler(s):\n${written.map((file) => `  ${file}`).join("\n")}\nEach answers 501 until you implement it.`
      : "Every operation in the spec has a handler; nothing to scaffold.",
  );
}
