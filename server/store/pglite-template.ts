/**
 * A PGlite template (ConnectOptions.pgliteTemplate): an in-memory database with every migration applied, dumped as an
 * uncompressed tar of its data directory. A database opened from it skips initdb and the migrations.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, PostgresDialect } from "kysely";
import { cacheDir } from "../cache-dir.js";
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

/** The version of PGlite installed: a database written by one version is opened by that version. */
export function pgliteVersion(): string {
  // The package does not export its package.json; walk up from its main file to it.
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
}

/** Where the server keeps its templates: the project's node_modules/.cache when there is one, else the temp dir. */
export function defaultTemplateDir(cwd = process.cwd()): string {
  return cacheDir("pglite-templates", cwd);
}

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * The template of this server's migrations and PGlite's version in `dir`, written the first time it is asked for
 * (about 6 s of a 2-core machine, once): every new PGlite database the server opens, in memory or in a new data
 * directory, starts from it (a new data directory 1.9 s instead of 7.5 s plus its migrations, measured). Named by a
 * hash of what decides its content, so a new migration or PGlite makes a new one (older ones are deleted a day later).
 * Written to a private name and renamed, so processes starting at once never read half a file. Undefined when it cannot
 * be written (a read-only folder): the database is then made by initdb and the migrations, as without one.
 */
export async function cachedPGliteTemplate(dir: string): Promise<string | undefined> {
  const hash = createHash("sha256").update(pgliteVersion());
  // Every file under the migrations' folder (whichever of them migrate.ts applies here, they decide the content).
  for (const file of readdirSync(migrationsDir, { recursive: true }).map(String).sort()) {
    if (file.endsWith(".sql")) hash.update(file).update(readFileSync(join(migrationsDir, file)));
  }
  const name = `migrated-${hash.digest("hex").slice(0, 16)}.tar`;
  const file = join(dir, name);
  if (existsSync(file)) return file;
  const partial = `${file}.${process.pid}.partial`;
  try {
    mkdirSync(dir, { recursive: true });
    await writePGliteTemplate(partial);
    renameSync(partial, file);
    // Older ones a day after their last write: a server of the older code starting now still finds its own.
    for (const older of readdirSync(dir).filter((entry) => /^migrated-[0-9a-f]+\.tar$/.test(entry) && entry !== name)) {
      if (Date.now() - statSync(join(dir, older)).mtimeMs > 86_400_000) rmSync(join(dir, older), { force: true });
    }
    return file;
  } catch {
    try {
      rmSync(partial, { force: true });
    } catch {
      // Nothing was written there.
    }
    return undefined;
  }
}
