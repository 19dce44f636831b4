/**
 * A PGlite template (ConnectOptions.pgliteTemplate): an in-memory database with every migration applied, dumped as an
 * uncompressed tar of its data directory. A database opened from it skips initdb and the migrations.
 */
import { writeFileSync } from "node:fs";
import { Kysely, PostgresDialect } from "kysely";
import { migrate } from "./migrate.js";
import { openPGlite } from "./pglite-open.js";
import { PGlitePool, singleInstance } from "./pglite-pool.js";
import type { Database } from "./schema.js";

/** Writes the template to `file`; returns the migrations it holds. */
export async function writePGliteTemplate(file: string): Promise<string[]> {
  const pglite = await openPGlite(undefined);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new PGlitePool(singleInstance(pglite), {}) }),
  });
  try {
    const applied = await migrate(db);
    const dump = await pglite.dumpDataDir("none");
    writeFileSync(file, new Uint8Array(await dump.arrayBuffer()));
    return applied;
  } finally {
    await db.destroy();
  }
}
