/**
 * A PGlite template (ConnectOptions.pgliteTemplate, written by pglite-template.ts): a database opened from it is the
 * database the migrations make, on PGlite's thread and on this one, and a template never overwrites a data directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { writePGliteTemplate } from "../../server/store/pglite-template.js";
import type { Database } from "../../server/store/schema.js";
import { openStore } from "../../server/store/store.js";

const dir = mkdtempSync(join(tmpdir(), "pglite-template-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The migrations applied, and every table, index, function and trigger of the public schema with its definition. */
async function schemaOf(db: Kysely<Database>) {
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

describe("a PGlite template", () => {
  const template = join(dir, "migrated.tar");

  it.each([true, false])("opens as the migrated database, empty (on PGlite's thread: %s)", async (pgliteThread) => {
    const applied = await writePGliteTemplate(template);
    const written = new Date();
    const fresh = await openStore({ totalCountCap: 10, pgliteThread });
    const fromTemplate = await openStore({ totalCountCap: 10, pgliteThread, pgliteTemplate: template });
    let again: Awaited<ReturnType<typeof openStore>> | undefined;
    try {
      const expected = await schemaOf(fresh.store.db);
      expect(expected.migrations).toEqual(applied);
      expect(expected.objects.length).toBeGreaterThan(50);
      expect(await schemaOf(fromTemplate.store.db)).toEqual(expected);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscribers`.execute(
        fromTemplate.store.db,
      );
      expect(rows[0]?.n).toBe(0);
      // Its migrations ran when the template was written, not when it was opened.
      const times = await sql<{ at: Date }>`SELECT applied_at AS at FROM schema_migrations`.execute(
        fromTemplate.store.db,
      );
      for (const { at } of times.rows) expect(at.getTime()).toBeLessThan(written.getTime());
      // Each database opened from it is its own: a write to one is not in the next.
      await fromTemplate.store.access.ensureEnvironment("Template");
      again = await openStore({ totalCountCap: 10, pgliteThread, pgliteTemplate: template });
      const environments = await sql<{ n: number }>`SELECT count(*)::int AS n FROM environments`.execute(
        again.store.db,
      );
      expect(environments.rows[0]?.n).toBe(0);
    } finally {
      await fresh.close();
      await fromTemplate.close();
      await again?.close();
    }
  });

  it("is refused beside a data directory, whose database it would replace", async () => {
    await expect(
      openStore({ totalCountCap: 10, pgliteThread: false, dataDir: join(dir, "data"), pgliteTemplate: template }),
    ).rejects.toThrow("A PGlite template starts an in-memory database only");
  });
});
