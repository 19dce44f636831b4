/**
 * A PGlite template (ConnectOptions.pgliteTemplate, written by pglite-template.ts): a database opened from it is the
 * database the migrations make, on PGlite's thread and on this one, in memory and in a new data directory; a data
 * directory that holds a database is opened as it is, and one whose unpacking was cut short is unpacked again. The
 * server's cached template is written once per set of migrations.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockFileName } from "../../server/store/data-directory-lock.js";
import { unpackingMarker } from "../../server/store/pglite-open.js";
import { cachedPGliteTemplate } from "../../server/store/pglite-template.js";
import { openStore } from "../../server/store/store.js";
import { schemaOf } from "../support/schema.js";

const dir = mkdtempSync(join(tmpdir(), "pglite-template-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a PGlite template", () => {
  const cache = join(dir, "cache");
  let template: string;
  let written: Date;
  /** The schema a new database gets from initdb and the migrations. */
  let expected: Awaited<ReturnType<typeof schemaOf>>;
  beforeAll(async () => {
    template = (await cachedPGliteTemplate(cache)) as string;
    written = new Date();
    const fresh = await openStore({ totalCountCap: 10, pgliteThread: false });
    try {
      expected = await schemaOf(fresh.store.db);
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it.each([true, false])("opens as the migrated database, empty (on PGlite's thread: %s)", async (pgliteThread) => {
    const fromTemplate = await openStore({ totalCountCap: 10, pgliteThread, pgliteTemplate: template });
    let again: Awaited<ReturnType<typeof openStore>> | undefined;
    try {
      expect(expected.migrations.length).toBeGreaterThan(10);
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
      await fromTemplate.close();
      await again?.close();
    }
  });

  it("starts a new data directory, on disk, and never replaces the database one holds", async () => {
    const dataDir = join(dir, "new-data");
    const first = await openStore({ totalCountCap: 10, pgliteThread: false, dataDir, pgliteTemplate: template });
    try {
      const { migrations } = await schemaOf(first.store.db);
      expect(migrations.length).toBeGreaterThan(10);
      await first.store.access.ensureEnvironment("Kept");
    } finally {
      await first.close();
    }
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
    expect(existsSync(join(dataDir, unpackingMarker))).toBe(false);
    // Opened again with the template, on PGlite's thread: the same database, the environment written before kept.
    const again = await openStore({ totalCountCap: 10, pgliteThread: true, dataDir, pgliteTemplate: template });
    try {
      const { rows } = await sql<{ name: string }>`SELECT name FROM environments`.execute(again.store.db);
      expect(rows.map((row) => row.name)).toEqual(["Kept"]);
    } finally {
      await again.close();
    }
  });

  it("unpacks it again into a data directory whose unpacking was cut short", async () => {
    // What a process killed while unpacking leaves: the marker, PG_VERSION, and some of the other files.
    const dataDir = join(dir, "cut-short");
    mkdirSync(join(dataDir, "base", "1"), { recursive: true });
    writeFileSync(join(dataDir, unpackingMarker), "");
    writeFileSync(join(dataDir, "PG_VERSION"), "17\n");
    writeFileSync(join(dataDir, "base", "1", "1259"), "half a file");
    const opened = await openStore({ totalCountCap: 10, pgliteThread: false, dataDir, pgliteTemplate: template });
    try {
      expect((await schemaOf(opened.store.db)).objects.length).toBeGreaterThan(50);
      expect(existsSync(join(dataDir, unpackingMarker))).toBe(false);
      // The data directory's lock (taken before the database is opened) is left in place.
      expect(existsSync(join(dataDir, lockFileName))).toBe(true);
    } finally {
      await opened.close();
    }
  });

  it("is written once per set of migrations into the server's cache, and not at all where it cannot be", async () => {
    expect(template).toMatch(/migrated-[0-9a-f]{16}\.tar$/);
    const writtenAt = statSync(template).mtimeMs;
    expect(await cachedPGliteTemplate(cache)).toBe(template);
    expect(statSync(template).mtimeMs).toBe(writtenAt);
    expect(readdirSync(cache)).toEqual([basename(template)]);
    // A folder that cannot be made (a file is in the way): no template, and the caller makes its database as before.
    writeFileSync(join(dir, "a-file"), "");
    expect(await cachedPGliteTemplate(join(dir, "a-file", "cache"))).toBeUndefined();
  });
});
