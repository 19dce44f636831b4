/** What a migrated database holds, to compare a database copied or unpacked from a template with a freshly migrated one. */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../server/store/schema.js";

/** The migrations applied, and every table, index, function and trigger of the public schema with its definition. */
export async function schemaOf(db: Kysely<Database>) {
  const migrations = await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(db);
  const objects = await sql<{ object: string }>`
    SELECT 'relation ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(pg_get_indexdef(c.oid), '') AS object
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
    UNION ALL
    SELECT 'function ' || p.proname || ' ' || pg_get_functiondef(p.oid)
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.prokind = 'f'
    UNION ALL
    SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE NOT t.tgisinternal
    ORDER BY 1`.execute(db);
  return { migrations: migrations.rows.map((row) => row.name), objects: objects.rows.map((row) => row.object) };
}
