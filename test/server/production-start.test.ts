/**
 * A production deployment never holds a key anyone can derive: NODE_ENV=production loads no demo data unless asked
 * for, refuses to start over a database that holds the public demo keys (unless ALLOW_DEMO_KEYS says it is a public
 * demo), and `keys create` will not add an operator's key to the demo environment until `keys revoke-demo` ran.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runServerScript, startServerProcess } from "../../scripts/processes.js";
import { runKeysCommand } from "../../server/cli/keys.js";
import { publicDemoKeys } from "../../server/demo/options.js";
import { openStore } from "../../server/store/store.js";
import { outputMatching } from "../support/output.js";

const dataDir = mkdtempSync(join(tmpdir(), "production-start-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const small = { DEMO_SUBSCRIBERS: "10", DEMO_NOTIFICATIONS: "10", DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn" };

/** A production start that is expected to be refused: its exit status and output. */
function refusedStart() {
  const result = spawnSync(process.execPath, [runServerScript], {
    env: { ...process.env, ...small, NODE_ENV: "production" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("NODE_ENV=production", () => {
  it("loads no demo data, so prints no demo key", async () => {
    const server = await startServerProcess({ ...small, NODE_ENV: "production" });
    try {
      expect(server.keys).toEqual({});
      // The banner's first line, so that the check below reads the whole banner, not the output before it.
      expect(await outputMatching(server, "Notification query API")).not.toContain("Demo API keys");
    } finally {
      await server.stop();
    }
    const opened = await openStore({ dataDir, totalCountCap: 10 });
    try {
      expect(await opened.store.isEmpty()).toBe(true);
    } finally {
      await opened.close();
    }
  }, 90_000);

  it("refuses to start over the public demo keys, says how to remove them, and starts once they are gone", async () => {
    // The demo data loaded by a development start into the same data directory.
    const development = await startServerProcess({ ...small, NODE_ENV: "development" });
    expect(Object.keys(development.keys).sort()).toEqual(["Development", "Production"]);
    await development.stop();

    const refused = refusedStart();
    expect(refused.status).toBe(1);
    expect(refused.output).toContain("Refusing to start with NODE_ENV=production");
    expect(refused.output).toContain("public demo API keys of Production and Development");
    expect(refused.output).toContain("novu-query-server keys revoke-demo");
    expect(refused.output).not.toMatch(/^\s+at /m);
    // A public demo says so, and is warned.
    const demo = await startServerProcess({ ...small, NODE_ENV: "production", ALLOW_DEMO_KEYS: "true" });
    expect(Object.keys(demo.keys)).toHaveLength(2);
    expect(demo.output()).toContain("anyone can read and change these environments");
    await demo.stop();

    await expect(runKeysCommand(["create", "--environment", "Production"], { DATA_DIR: dataDir })).rejects.toThrow(
      "holds the demo data and the public demo key of Production",
    );
    expect(await runKeysCommand(["revoke-demo"], { DATA_DIR: dataDir })).toBe(
      "Removed the public demo keys of Production and Development.",
    );
    expect(await runKeysCommand(["revoke-demo"], { DATA_DIR: dataDir })).toBe("No public demo key was there.");
    const own = await runKeysCommand(["create", "--environment", "Production"], { DATA_DIR: dataDir });
    expect(publicDemoKeys().map((entry) => entry.key)).not.toContain(own);

    const server = await startServerProcess({ ...small, NODE_ENV: "production" });
    try {
      expect(server.keys).toEqual({});
      const demoKey = publicDemoKeys()[0]?.key as string;
      const asDemo = await fetch(`${server.baseUrl}/v1/notifications`, {
        headers: { authorization: `ApiKey ${demoKey}` },
      });
      expect(asDemo.status).toBe(401);
      const asOwn = await fetch(`${server.baseUrl}/v1/notifications`, { headers: { authorization: `ApiKey ${own}` } });
      expect(asOwn.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
