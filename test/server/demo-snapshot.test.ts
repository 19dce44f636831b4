/**
 * Start-up snapshots of the demo database (server/demo/snapshot.ts): built once per set of demo options, copied for
 * every start, the copies deleted at exit (and, when a process died, at the next start), and a server started from a
 * copy answers exactly as one that generated its data.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess } from "../../scripts/processes.js";
import { defaultDemoOptions } from "../../server/demo/options.js";
import { demoWorkingCopy, snapshotPath } from "../../server/demo/snapshot.js";

const dir = mkdtempSync(join(tmpdir(), "novu-query-snapshots-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("demo snapshots", () => {
  it("name each set of demo options apart, and the same options alike", () => {
    const small = { ...defaultDemoOptions, subscribers: 10 };
    expect(snapshotPath(dir, small)).toBe(snapshotPath(dir, { ...small }));
    expect(snapshotPath(dir, small)).not.toBe(snapshotPath(dir, defaultDemoOptions));
    expect(snapshotPath(dir, small)).not.toBe(snapshotPath(dir, { ...small, seed: 1 }));
  });

  it("are built once, then copied; copies of dead processes are cleared", async () => {
    const demo = { ...defaultDemoOptions, subscribers: 3, notifications: 3 };
    let seeds = 0;
    const seed = async (dataDir: string) => {
      seeds += 1;
      writeFileSync(join(dataDir, "PG_VERSION"), "15\n");
    };
    const first = await demoWorkingCopy(dir, demo, seed);
    const second = await demoWorkingCopy(dir, demo, seed);
    expect([first.built, second.built, seeds]).toEqual([true, false, 1]);
    expect(first.dataDir).not.toBe(second.dataDir);
    expect(readdirSync(second.dataDir)).toEqual(["PG_VERSION"]);
    first.remove();
    expect(existsSync(first.dataDir)).toBe(false);
    // A copy whose process is gone (pid 2^22 + 1 is above Linux's pid_max) goes at the next start.
    const orphan = join(dir, "running", `${2 ** 22 + 1}-1`);
    mkdirSync(orphan, { recursive: true });
    const third = await demoWorkingCopy(dir, demo, seed);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(second.dataDir)).toBe(true);
    second.remove();
    third.remove();
  });

  it("leave a spare copy for the next start, which takes it instead of copying; one process per spare", async () => {
    const demo = { ...defaultDemoOptions, subscribers: 4, notifications: 4 };
    const seed = async (dataDir: string) => writeFileSync(join(dataDir, "PG_VERSION"), "15\n");
    const first = await demoWorkingCopy(dir, demo, seed);
    expect(first.tookSpare).toBe(false);
    await first.prepareSpare();
    await first.prepareSpare(); // one spare is enough
    const spares = () =>
      readdirSync(join(dir, "spares")).filter((entry) => entry.startsWith(basename(snapshotPath(dir, demo))));
    expect(spares()).toHaveLength(1);
    const [second, third] = await Promise.all([demoWorkingCopy(dir, demo, seed), demoWorkingCopy(dir, demo, seed)]);
    expect([second.tookSpare, third.tookSpare].sort()).toEqual([false, true]);
    expect(spares()).toHaveLength(0);
    expect(readdirSync(second.dataDir)).toEqual(["PG_VERSION"]);
    expect(readdirSync(third.dataDir)).toEqual(["PG_VERSION"]);
    // A spare that a dead process had not finished goes at the next start; a finished one is kept for it.
    const unfinished = join(dir, "spares", `partial-${2 ** 22 + 1}-1`);
    mkdirSync(unfinished, { recursive: true });
    const fourth = await demoWorkingCopy(dir, demo, seed);
    expect(existsSync(unfinished)).toBe(false);
    // Two starts making their spare at the same moment keep one of them at most.
    await Promise.all([second.prepareSpare(), fourth.prepareSpare()]);
    expect(spares().length).toBeLessThanOrEqual(1);
    for (const copy of [first, second, third, fourth]) copy.remove();
  });

  it("serve the same answers as freshly generated data, and leave no copy behind at exit", async () => {
    const env = { DEMO_SUBSCRIBERS: "40", DEMO_NOTIFICATIONS: "90", DEMO_SNAPSHOT_DIR: dir };
    const answers: unknown[] = [];
    const extras: Record<string, string>[] = [{ DEMO_SNAPSHOTS: "off" }, {}, {}];
    for (const extra of extras) {
      const server = await startServerProcess({ ...env, ...extra, LOG_LEVEL: "info" });
      try {
        const headers = { authorization: `ApiKey ${server.keys.Production}` };
        const list = await fetch(`${server.baseUrl}/v1/notifications?limit=50`, { headers });
        const search = await fetch(`${server.baseUrl}/v2/subscribers?limit=100`, { headers });
        answers.push({ list: await list.json(), search: await search.json() });
      } finally {
        await server.stop();
      }
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(readdirSync(dir).filter((entry) => entry.startsWith("demo-")).length).toBeGreaterThanOrEqual(1);
    expect(readdirSync(join(dir, "running"))).toEqual([]);
  }, 120_000);
});
