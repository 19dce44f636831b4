/**
 * A PGlite database as this server opens it, on whichever thread calls: the extensions its schema needs (pg_trgm),
 * and the text decoders that keep a leading U+FEFF (pglite-text.ts). In memory unless a data directory is given. A
 * new database, in memory or in a data directory that holds none yet, starts from `template` when given (see
 * ConnectOptions.pgliteTemplate) instead of running initdb; a data directory that holds a database is opened as it is.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { lockFileName } from "./data-directory-lock.js";
import { keepLeadingByteOrderMarks } from "./pglite-text.js";

const extensions = { pg_trgm };

/**
 * Written into a data directory before the template is unpacked there and removed once it is on disk: found at the
 * next open, the unpacking was cut short (the process died), and since the server answers nothing before it is
 * removed, the directory holds nothing anyone was told is stored. Its files are deleted and the template unpacked
 * again, where PGlite alone would take the half-written files for a database (its PG_VERSION comes first).
 */
export const unpackingMarker = "novu-query-unpacking-template";

/** Whether opening `dataDir` (undefined: memory) makes a new database, which a template would start. */
export function makesNewDatabase(dataDir: string | undefined): boolean {
  return (
    dataDir === undefined || !existsSync(join(dataDir, "PG_VERSION")) || existsSync(join(dataDir, unpackingMarker))
  );
}

export async function openPGlite(dataDir: string | undefined, template?: string | undefined): Promise<PGlite> {
  keepLeadingByteOrderMarks();
  const loadDataDir = () => new Blob([readFileSync(template as string)]);
  if (dataDir === undefined) {
    return PGlite.create("memory://", { extensions, ...(template !== undefined && { loadDataDir: loadDataDir() }) });
  }
  const marker = join(dataDir, unpackingMarker);
  if (template === undefined || !makesNewDatabase(dataDir)) return PGlite.create(dataDir, { extensions });
  if (existsSync(marker)) {
    for (const entry of readdirSync(dataDir)) {
      if (entry !== lockFileName && entry !== unpackingMarker) rmSync(join(dataDir, entry), { recursive: true });
    }
  }
  writeFileSync(marker, "");
  const pglite = await PGlite.create(dataDir, { extensions, loadDataDir: loadDataDir() });
  // PGlite wrote the files without fsync; PostgreSQL's own writes after this point are made durable by its WAL, which
  // assumes these are on disk.
  syncTree(dataDir);
  rmSync(marker);
  syncTree(dataDir, false);
  return pglite;
}

/** fsync of every file and folder under `dir` (of `dir` alone with `deep` false). */
function syncTree(dir: string, deep = true): void {
  if (deep) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) syncTree(join(dir, entry.name));
      else if (entry.isFile()) syncPath(join(dir, entry.name));
    }
  }
  syncPath(dir);
}

function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
