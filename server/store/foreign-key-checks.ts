/**
 * Foreign keys checked once per bulk load instead of row by row, as PostgreSQL's "Populating a Database" advises: in
 * the load's transaction a superuser's session skips the row-level checks (`session_replication_role = replica`, as
 * pg_restore does), and once the rows are written one anti-join per foreign key looks for a row without its parent.
 * A role that may not do this keeps the row-by-row checks. PGlite's session is a superuser's.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

interface ForeignKey {
  name: string;
  child: string;
  parent: string;
  childColumns: string[];
  parentColumns: string[];
}

/** The foreign keys declared on `tables` (on a partitioned table: the parent's, which cover its partitions). */
async function foreignKeysOf(db: Kysely<Database>, tables: readonly string[]): Promise<ForeignKey[]> {
  const { rows } = await sql<ForeignKey>`
    SELECT k.conname AS name, k.conrelid::regclass::text AS child, k.confrelid::regclass::text AS parent,
      array(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY AS c(n, i)
            JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = c.n ORDER BY c.i)::text[] AS "childColumns",
      array(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY AS c(n, i)
            JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = c.n ORDER BY c.i)::text[] AS "parentColumns"
    FROM pg_constraint k
    WHERE k.contype = 'f' AND k.conparentid = 0 AND k.conrelid::regclass::text IN (${sql.join(tables)})
    ORDER BY 1`.execute(db);
  return rows;
}

/** Throws naming the first foreign key that a row of its table breaks. */
export async function checkForeignKeys(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  for (const key of await foreignKeysOf(db, tables)) {
    const matches = sql.join(
      key.childColumns.map((column, i) => sql`p.${sql.id(key.parentColumns[i] as string)} = c.${sql.id(column)}`),
      sql` AND `,
    );
    const present = sql.join(
      key.childColumns.map((column) => sql`c.${sql.id(column)} IS NOT NULL`),
      sql` AND `,
    );
    const { rows } = await sql<{ broken: boolean }>`
      SELECT EXISTS (SELECT 1 FROM ${sql.table(key.child)} c WHERE ${present}
        AND NOT EXISTS (SELECT 1 FROM ${sql.table(key.parent)} p WHERE ${matches})) AS broken`.execute(db);
    if (rows[0]?.broken) throw new Error(`a row of ${key.child} breaks its foreign key ${key.name}`);
  }
}

/**
 * Runs a bulk write with the row-by-row foreign key checks of `tables` off where the role allows it, then checks
 * those keys at once. Call it inside a transaction: the setting is the transaction's, and a broken key rolls it back.
 */
export async function withForeignKeysCheckedAfter<T>(
  db: Kysely<Database>,
  tables: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  const { rows } = await sql<{
    superuser: boolean;
  }>`SELECT current_setting('is_superuser') = 'on' AS superuser`.execute(db);
  if (!rows[0]?.superuser) return work();
  await sql`SET LOCAL session_replication_role = replica`.execute(db);
  const result = await work();
  await sql`SET LOCAL session_replication_role = origin`.execute(db);
  await checkForeignKeys(db, tables);
  return result;
}
