/**
 * A PGlite database as this server opens it, on whichever thread calls: the extensions its schema needs (pg_trgm),
 * and the text decoders that keep a leading U+FEFF (pglite-text.ts). In memory unless a data directory is given.
 */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { keepLeadingByteOrderMarks } from "./pglite-text.js";

export function openPGlite(dataDir: string | undefined) {
  keepLeadingByteOrderMarks();
  return PGlite.create(dataDir ?? "memory://", { extensions: { pg_trgm } });
}
