/**
 * Handler stubs for the operations that have none: one file per operation, answering 501 until it is written, and
 * registered in the handlers' `index.ts` (made when there is none). A file that exists is never changed, but for
 * the new import and entry in `index.ts`; imports go where Biome keeps them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operationTable } from "@novu-query/contract/operations";
import { namedStatuses } from "./operation-errors.js";

/** The error helpers `context.errors` has for an operation, as a stub's comment lists them. */
function errorHelpers(id: string): string[] {
  const statuses: readonly number[] | undefined = (operationTable as Record<string, { statuses: readonly number[] }>)[
    id
  ]?.statuses;
  if (!statuses) return [];
  const named = Object.entries(namedStatuses)
    .filter(([, status]) => statuses.includes(status))
    .map(([name]) => (name === "validation" ? "errors.validation(fields)" : `errors.${name}(message)`));
  const others = statuses.filter((status) => status >= 400 && !Object.values(namedStatuses).includes(status as never));
  const other = others.includes(503) ? 503 : others.at(-1);
  return other === undefined ? named : [...named, `errors.status(${other}, message)`];
}

/** Text as `//` comment lines of at most 118 characters. */
function comment(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + word.length + 1 <= 118) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(`// ${word}`);
  }
  return lines.join("\n");
}

/** The stub of one operation: typed by `handler()`, answering the 501 that the binding allows for stubs only. */
export function stubSource(id: string): string {
  const helpers = errorHelpers(id);
  const errors = helpers.length > 0 ? `from \`errors\`: ${helpers.join(", ")}.` : "from `errors`.";
  return `import { handler, NotImplementedError } from "@novu-query/express";

${comment(`A stub for an operation that had no handler. Replace the body: read the typed input, do the work, return { status, body } exactly as the contract declares it, and throw the errors it declares ${errors} Novu's texts are in \`messages\`. Until then it answers 501.`)}
export const ${id} = handler("${id}", async () => {
  throw new NotImplementedError("${id}");
});
`;
}

/** The handlers' index before any is registered. */
export const emptyIndexSource = `import type { Handlers } from "@novu-query/express";

/** Every operation's handler. \`npx novu-query-express init\` adds a stub here for an operation the contract gains. */
export const handlers = {
} satisfies Handlers;
`;

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

/** Writes a stub for each operation `handlersDir/index.ts` does not register; returns the files written. */
export function scaffold(operationIds: readonly string[], handlersDir: string): string[] {
  mkdirSync(handlersDir, { recursive: true });
  const indexPath = join(handlersDir, "index.ts");
  const written: string[] = [];
  let index = existsSync(indexPath) ? readFileSync(indexPath, "utf8") : emptyIndexSource;
  if (!existsSync(indexPath)) written.push(indexPath);
  const block = index.match(/export const handlers = \{([\s\S]*?)\} satisfies Handlers;/);
  if (block?.[1] === undefined) {
    throw new Error(`${indexPath} has no \`export const handlers = { ... } satisfies Handlers;\``);
  }
  const registered = new Set(block[1].split(/[\s,]+/).filter(Boolean));
  for (const id of operationIds.filter((operationId) => !registered.has(operationId))) {
    const file = join(handlersDir, `${id}.ts`);
    if (existsSync(file)) throw new Error(`${file} exists but is not registered in ${indexPath}`);
    writeFileSync(file, stubSource(id));
    index = withImport(index, `import { ${id} } from "./${id}.js";\n`, `./${id}.js`);
    index = index.replace(/(\n)(\} satisfies Handlers;)/, `$1  ${id},$1$2`);
    written.push(file);
  }
  if (written.length > 0) writeFileSync(indexPath, index);
  return written;
}
