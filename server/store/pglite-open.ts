/**
 * A PGlite database as this server opens it, on whichever thread calls: the extensions its schema needs (pg_trgm),
 * and the text decoders that keep a leading U+FEFF (pglite-text.ts). In memory unless a data directory is given; an
 * in-memory one starts from `template` when given (see ConnectOptions.pgliteTemplate) instead of running initdb.
 */
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { keepLeadingByteOrderMarks } from "./pglite-text.js";

export function openPGlite(dataDir: string | undefined, template?: string | undefined) {
  keepLeadingByteOrderMarks();
  if (dataDir !== undefined && template !== undefined) {
    throw new Error("A PGlite template starts an in-memory database only: give a data directory or a template");
  }
  const loadDataDir = template === undefined ? undefined : new Blob([readFileSync(template)]);
  return PGlite.create(dataDir ?? "memory://", { extensions: { pg_trgm }, ...(loadDataDir && { loadDataDir }) });
}
