/**
 * Whether the benchmark's database has the schema that the migrations make. It is loaded once (`npm run bench:data`)
 * and kept for many runs, so a trigger, index or function changed on it by hand or by an experiment would be measured
 * as if it were the code's (it happened: D81's first run measured the trigger it replaced). `npm run bench` compares
 * the definitions in its catalogue with those of a scratch database migrated now on the same server, and refuses to
 * measure when they differ.
 */
import pg from "pg";
import { withScratchPostgres } from "./patch-bench-databases.js";

/**
 * The objects that the migrations make, each by a name and its definition as PostgreSQL prints it: columns, indexes,
 * constraints and triggers of the tables (not of their partitions, whose number depends on the data's months; each
 * takes its parent's indexes and triggers), the functions that are not an extension's, the extensions, and the
 * migrations recorded. The benchmark's own tables (`bench_*`) are left out.
 */
const catalogue = `
  WITH own AS (
    SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname NOT LIKE 'bench\\_%'
  )
  SELECT 'table ' || own.relname AS name, coalesce(array_to_string(c.reloptions, ', '), '') AS definition
    FROM own JOIN pg_class c USING (oid)
  UNION ALL
  SELECT 'column ' || own.relname || '.' || a.attname,
         format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
         || coalesce(CASE a.attgenerated WHEN 's' THEN ' GENERATED ' ELSE ' DEFAULT ' END || pg_get_expr(d.adbin, d.adrelid), '')
    FROM own JOIN pg_attribute a ON a.attrelid = own.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = own.oid AND d.adnum = a.attnum
  UNION ALL
  SELECT 'index ' || i.relname, pg_get_indexdef(i.oid) || coalesce(' WITH ' || array_to_string(i.reloptions, ', '), '')
    FROM own JOIN pg_index x ON x.indrelid = own.oid JOIN pg_class i ON i.oid = x.indexrelid
  UNION ALL
  SELECT 'constraint ' || own.relname || '.' || con.conname, pg_get_constraintdef(con.oid)
    FROM own JOIN pg_constraint con ON con.conrelid = own.oid
  UNION ALL
  SELECT 'trigger ' || own.relname || '.' || t.tgname, pg_get_triggerdef(t.oid)
    FROM own JOIN pg_trigger t ON t.tgrelid = own.oid AND NOT t.tgisinternal
  UNION ALL
  SELECT 'function ' || p.oid::regprocedure::text, pg_get_functiondef(p.oid)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.prokind IN ('f', 'p')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  UNION ALL
  SELECT 'extension ' || extname, '' FROM pg_extension
  UNION ALL
  SELECT 'migration ' || name, '' FROM schema_migrations`;

/** The catalogue of the database at `url`: each object's name and definition. */
export async function schemaObjects(url: string): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; definition: string }>(catalogue);
    return new Map(rows.map((row) => [row.name, row.definition]));
  } finally {
    await client.end();
  }
}

/** What differs between the database's objects and the migrations' ones: each object missing, extra or changed. */
export function compareSchemas(database: Map<string, string>, migrated: Map<string, string>): string[] {
  const differences: string[] = [];
  for (const [name, definition] of migrated) {
    const found = database.get(name);
    if (found === undefined) differences.push(`missing: ${name}`);
    else if (found !== definition)
      differences.push(`changed: ${name}\n    is:        ${oneLine(found)}\n    migrations: ${oneLine(definition)}`);
  }
  for (const name of database.keys()) if (!migrated.has(name)) differences.push(`not made by the migrations: ${name}`);
  return differences.sort();
}

function oneLine(definition: string): string {
  const line = definition.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * The differences between the database at `url` and a scratch database on the same server, created, migrated by the
 * store and dropped for the comparison (about a second).
 */
export function schemaDifferences(url: string): Promise<string[]> {
  return withScratchPostgres(
    `novu_schema_check_${process.pid}`,
    1,
    async (_store, _admin, migrated) => compareSchemas(await schemaObjects(url), await schemaObjects(migrated)),
    url,
  );
}

/**
 * Throws, naming every difference, unless the database at `url` has exactly the migrations' schema. A role that may not
 * create the scratch database (a server given with `--database-url`) is told so through `warn`, and the run goes on.
 */
export async function assertMigratedSchema(url: string, warn: (message: string) => void): Promise<void> {
  let differences: string[];
  try {
    differences = await schemaDifferences(url);
  } catch (error) {
    if ((error as { code?: string }).code !== "42501") throw error;
    warn(
      `The schema was not checked: this role may not create the scratch database it compares with (${(error as Error).message}).`,
    );
    return;
  }
  if (differences.length === 0) return;
  throw new Error(
    `The benchmark's database does not have the schema that the migrations make, so it would not measure this code:\n  ${differences.join("\n  ")}\nLoad it again with \`npm run bench:data -- --reset\`, or put the objects back as the migrations make them.`,
  );
}
