/**
 * Writes the sections of the documents that are generated from declarations in code (docs/server.md's settings,
 * docs/backend.md's inputs). A process of its own, after scripts/build.ts: the inputs' table reads the operation table
 * that build has just written, which a process that ran the build holds in its module cache as it was before.
 */
import { writeSection } from "./generated-section.js";
import { inputsTable } from "./inputs-table.js";
import { settingsTable } from "./settings-table.js";

for (const section of [settingsTable, inputsTable]) {
  if (writeSection(section)) console.log(`Wrote the ${section.name} section of ${section.doc} from ${section.source}`);
}
