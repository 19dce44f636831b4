import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashApiKey } from "@novu-query/express";
import { describe, expect, it } from "vitest";
import { runKeysCommand } from "../../server/cli/keys.js";
import { openStore } from "../../server/store/store.js";

describe("npm run keys -- create", () => {
  it("creates the environment if needed and a key that authenticates; only its hash is stored", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "keys-"));
    try {
      const key = await runKeysCommand(["create", "--environment", "Staging", "--retention-days", "14"], {
        DATA_DIR: dataDir,
      });
      expect(key).toMatch(/^[0-9a-f]{32}$/);
      const second = await runKeysCommand(["create", "--environment", "Staging"], { DATA_DIR: dataDir });
      expect(second).not.toBe(key);
      const opened = await openStore({ dataDir, totalCountCap: 10 });
      try {
        const environment = await opened.store.access.environmentForKey(key);
        expect(environment).toMatchObject({ name: "Staging", retentionDays: 14 });
        expect((await opened.store.access.environmentForKey(second))?.environmentId).toBe(environment?.environmentId);
        const stored = await opened.store.db.selectFrom("api_keys").select("key_hash").execute();
        expect(stored.map((row) => row.key_hash).sort()).toEqual([hashApiKey(key), hashApiKey(second)].sort());
        expect(JSON.stringify(stored)).not.toContain(key);
      } finally {
        await opened.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Three PGlite opens of a data directory, the first running initdb and every migration: 11 s alone on two cores,
    // over 30 s beside the rest of `npm test` (CI, stop 54).
  }, 120_000);

  it("refuses bad arguments and an in-memory database", async () => {
    await expect(runKeysCommand(["create"], { DATA_DIR: "/tmp/x" })).rejects.toThrow(
      "Usage: novu-query-server keys create",
    );
    await expect(runKeysCommand(["create", "--environment", "X", "--retention-days", "soon"], {})).rejects.toThrow(
      "--retention-days must be a whole number",
    );
    await expect(runKeysCommand(["create", "--environment", "X"], {})).rejects.toThrow("Set DATABASE_URL or DATA_DIR");
  });
});
