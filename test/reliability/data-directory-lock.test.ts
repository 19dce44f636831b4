/**
 * One owner per PGlite data directory. Before the lock, two servers on one directory each kept their own copy of the
 * database and every acknowledged PATCH of one of them was gone after a restart, and `keys create` beside a running
 * server printed a key that was never usable.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runServerScript, startServerProcess } from "../../scripts/processes.js";
import { DataDirectoryInUse, lockDataDirectory, lockFileName } from "../../server/store/data-directory-lock.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lock-"));
  dirs.push(dir);
  return dir;
}

const small = { DEMO_SUBSCRIBERS: "10", DEMO_NOTIFICATIONS: "5" };

/** A command of the server package against a data directory, run to its end. */
function run(args: string[], dir: string, script = runServerScript) {
  const env = { ...process.env, ...small, DATA_DIR: dir, PORT: "0", LOG_LEVEL: "warn" };
  const result = spawnSync(
    process.execPath,
    [...(script.endsWith(".ts") ? ["--import", "tsx"] : []), script, ...args],
    {
      cwd: root,
      env,
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("a PGlite data directory", () => {
  it("is refused to a second server and to the key CLI while a server holds it, naming the holder's pid", async () => {
    const dir = dataDir();
    const first = await startServerProcess({ ...small, DATA_DIR: dir });
    try {
      const pid = first.child.pid as number;
      const second = run([], dir);
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`is in use by process ${pid}`);
      expect(second.stdout).not.toContain('"msg":"ready"');

      const keys = run(["keys", "create", "--environment", "Beside"], dir, join(root, "server/cli.ts"));
      expect(keys.status).toBe(1);
      expect(keys.stderr).toContain(`is in use by process ${pid}`);
      expect(keys.stderr).not.toContain("Keep this key");
      expect(keys.stdout.trim()).toBe("");

      // The holder was not disturbed: it answers as before.
      const answer = await fetch(`${first.baseUrl}/v2/subscribers?limit=1`, {
        headers: { authorization: `ApiKey ${first.keys.Production}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await first.stop();
    }
    // Stopped cleanly, it gave the directory up: the CLI runs.
    const keys = run(["keys", "create", "--environment", "After"], dir, join(root, "server/cli.ts"));
    expect(keys.stderr).toContain("Keep this key");
    expect(keys.stdout.trim()).toMatch(/^[0-9a-f]{32}$/);
  }, 120_000);

  it("is taken over after its holder was killed (kill -9 leaves the lock file behind)", async () => {
    const dir = dataDir();
    const first = await startServerProcess({ ...small, DATA_DIR: dir });
    await first.crash();
    const second = await startServerProcess({ ...small, DATA_DIR: dir });
    try {
      const answer = await fetch(`${second.baseUrl}/v2/subscribers?limit=1`, {
        headers: { authorization: `ApiKey ${second.keys.Production}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it("is held once per process, released on close, and respected when another host holds it", () => {
    const dir = dataDir();
    const lock = lockDataDirectory(dir);
    expect(() => lockDataDirectory(dir)).toThrow(DataDirectoryInUse);
    lock.release();
    lockDataDirectory(dir).release();

    writeFileSync(
      join(dir, lockFileName),
      JSON.stringify({ pid: 1, host: "elsewhere", since: "2026-11-26T00:00:00Z" }),
    );
    expect(() => lockDataDirectory(dir)).toThrow(/in use by process 1 on host elsewhere/);
  });
});
