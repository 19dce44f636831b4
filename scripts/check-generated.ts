/**
 * Fails when generated/ differs from a fresh build of openapi/ (someone edited the spec without `npm run build`), or
 * docs/server.md's settings table from the settings' declarations (server/config.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { build } from "./build.js";
import { sectionIsCurrent } from "./generated-section.js";
import { inputsTable } from "./inputs-table.js";
import { settingsTable } from "./settings-table.js";

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

const fresh = mkdtempSync(join(tmpdir(), "generated-"));
try {
  await build(fresh);
  const committed = "generated";
  const expected = listFiles(fresh);
  const actual = listFiles(committed);
  const stale = [
    ...expected.filter((file) => !actual.includes(file)).map((file) => `missing: generated/${file}`),
    ...actual.filter((file) => !expected.includes(file)).map((file) => `not produced by the build: generated/${file}`),
    ...expected
      .filter((file) => actual.includes(file))
      .filter((file) => !readFileSync(join(fresh, file)).equals(readFileSync(join(committed, file))))
      .map((file) => `out of date: generated/${file}`),
  ];
  for (const section of [settingsTable, inputsTable]) {
    if (!sectionIsCurrent(section)) stale.push(`out of date: the ${section.name} section of ${section.doc}`);
  }
  if (stale.length > 0) {
    console.error(`generated files are stale; run \`npm run build\` and commit the result.\n${stale.join("\n")}`);
    process.exitCode = 1;
  } else {
    console.log("generated/ matches a fresh build of openapi/");
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
