/**
 * A full disk under the embedded default (PGlite in DATA_DIR), for real: a small tmpfs filled until PATCHes can no
 * longer be written, WAL included. Before the fix the server hung for good (the PGlite thread spinning after its
 * PANIC; no answer to any keyed request or /healthz; SIGTERM ignored); now every request is answered, the disk is
 * named once in the log, the server recovers by itself when space returns, SIGTERM ends it within
 * SHUTDOWN_TIMEOUT_MS, and every acknowledged PATCH is there after a restart.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { messages } from "@novu-query/express";
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { outputMatching } from "../support/output.js";
import { mountSmallDisk, type SmallDisk } from "../support/small-disk.js";

const shutdownTimeoutMs = 3000;
const env = (dataDir: string) => ({
  DATA_DIR: dataDir,
  DEMO_SUBSCRIBERS: "20",
  DEMO_NOTIFICATIONS: "10",
  SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
});

interface Sent {
  key: string;
  body: string;
  status: number;
  text: string;
  retryAfter: string | null;
}

function patch(server: ServerProcess, subscriberId: string, body: string, key: string): Promise<Sent> {
  return fetch(`${server.baseUrl}/v2/subscribers/${subscriberId}`, {
    method: "PATCH",
    body,
    headers: {
      "content-type": "application/json",
      "idempotency-key": key,
      authorization: `ApiKey ${server.keys.Production}`,
    },
    // Every request is answered: one that hangs fails the test here.
    signal: AbortSignal.timeout(10_000),
  }).then(async (response) => ({
    key,
    body,
    status: response.status,
    text: await response.text(),
    retryAfter: response.headers.get("retry-after"),
  }));
}

/** A PATCH that grows the database by about 30 kB of data that does not compress. */
const growing = () => JSON.stringify({ data: { blob: randomBytes(22_000).toString("base64") } });

async function health(server: ServerProcess, path = "/healthz") {
  const response = await fetch(server.baseUrl + path, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: (await response.json()) as { status: string } };
}

async function firstSubscriber(server: ServerProcess): Promise<string> {
  const response = await fetch(`${server.baseUrl}/v2/subscribers?limit=1`, {
    headers: { authorization: `ApiKey ${server.keys.Production}` },
  });
  return ((await response.json()) as { data: { subscriberId: string }[] }).data[0]?.subscriberId as string;
}

/** PATCHes until one is refused for a full disk; returns every answer. */
async function writeUntilFull(server: ServerProcess, subscriberId: string): Promise<Sent[]> {
  const sent: Sent[] = [];
  for (let n = 0; n < 3000; n++) {
    const answer = await patch(server, subscriberId, growing(), randomUUID());
    sent.push(answer);
    if (answer.status !== 200) break;
  }
  return sent;
}

async function until<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function stopWithin(server: ServerProcess, ms: number): Promise<number> {
  const started = Date.now();
  const exited = new Promise<number>((resolve) => server.child.once("exit", () => resolve(Date.now() - started)));
  server.child.kill("SIGTERM");
  const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), ms));
  const took = await Promise.race([exited, timeout]);
  if (!Number.isFinite(took)) server.child.kill("SIGKILL");
  return took;
}

const disks: SmallDisk[] = [];
afterEach(() => {
  // The last mounted first: the WAL's disk is mounted inside the tables'.
  for (const disk of disks.splice(0).reverse()) disk.unmount();
});

function smallDisk(ctx: { skip(note: string): never }, sizeMb: number, at?: string): SmallDisk {
  const disk = mountSmallDisk(sizeMb, at);
  if ("reason" in disk) return ctx.skip(`no small disk to fill: ${disk.reason}`);
  disks.push(disk);
  return disk;
}

const mb = 1024 * 1024;

/**
 * Two ways a disk fills: a table that cannot grow (PostgreSQL's ERROR: the statement fails, the database goes on), and
 * a WAL segment that cannot be made (PANIC: PGlite's instance is gone). To make each happen every time, the WAL
 * (`pg_wal`) has a small disk of its own inside the data directory's, and only one of the two is filled: WAL segments
 * are 16 MB, made whole before they are written, so with 1 MB left on the WAL's disk the next segment is what fails,
 * and with 1 MB left on the tables' disk (the WAL's untouched) a table is. On one disk, which comes first depends on
 * how much of the current segment is left when the disk fills (it did not always PANIC).
 */
const ways = [
  { way: "a table cannot grow", full: "tables", panics: false },
  { way: "no WAL segment can be made", full: "wal", panics: true },
] as const;

/** The server on a data directory whose tables and WAL have a small disk each; `full` is the one to fill. */
async function serverOnSmallDisks(ctx: { skip(note: string): never }) {
  const tables = smallDisk(ctx, 128);
  const dataDir = join(tables.dir, "db");
  // The WAL's disk is mounted where the server's first start makes the WAL, which PGlite fills as it would an empty
  // directory of its own.
  mkdirSync(join(dataDir, "pg_wal"), { recursive: true });
  const wal = smallDisk(ctx, 48, join(dataDir, "pg_wal"));
  return { dataDir, disks: { tables, wal }, server: await startServerProcess(env(dataDir)) };
}

describe.each(ways)("a full disk under PGlite in DATA_DIR: $way", ({ full, panics }) => {
  it("is answered 503 'storage full', logged once, and recovered from without a restart; nothing acknowledged is lost; SIGTERM ends it while full", async (ctx) => {
    const { dataDir, disks, server } = await serverOnSmallDisks(ctx);
    const disk = disks[full];
    try {
      const subscriberId = await firstSubscriber(server);
      disk.fill(1 * mb);
      const sent = await writeUntilFull(server, subscriberId);
      const refused = sent.at(-1) as Sent;
      expect(refused.status, `the last of ${sent.length} PATCHes: ${refused.text}`).toBe(503);
      expect(JSON.parse(refused.text)).toMatchObject({ statusCode: 503, message: messages.storageFull });
      // The log comes through a pipe, the answer through a socket: the answer can be read first (it was so once in
      // CI, where the log was then read empty). The supervisor's line of a lost instance is written before the
      // full disk's, on the same stream.
      await outputMatching(server, '"code":"ENOSPC"');
      // Which way the disk filled: the PANIC is what the supervisor answers (the instance lost, then reopened).
      expect(server.output().includes("lost a database connection"), server.output().slice(-3000)).toBe(panics);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(sent.filter((answer) => answer.status !== 200 && answer.status !== 503)).toEqual([]);

      // While the disk is full: every request answered at once, the probes say why.
      const more = await Promise.all(
        Array.from({ length: 5 }, () => patch(server, subscriberId, growing(), randomUUID())),
      );
      expect(more.map((answer) => answer.status)).toEqual([503, 503, 503, 503, 503]);
      expect(await health(server)).toEqual({ status: 503, body: expect.objectContaining({ status: "storage full" }) });
      expect((await health(server, "/readyz")).status).toBe(503);
      const enospc = server
        .output()
        .split("\n")
        .filter((line) => line.includes('"code":"ENOSPC"'));
      expect(enospc).toHaveLength(1);
      expect(enospc[0]).toContain(dataDir);

      // Space returns: the server takes writes again by itself.
      disk.unfill();
      const recovered = await until(
        "a PATCH succeeded after space was freed",
        async () => {
          const answer = await patch(server, subscriberId, JSON.stringify({ data: { recovered: true } }), randomUUID());
          return answer.status === 200 ? answer : undefined;
        },
        30_000,
      );
      sent.push(recovered);
      // The write acknowledged says space is back: the probes say so at once.
      expect(await health(server)).toEqual({ status: 200, body: { status: "ok" } });

      expect(await stopWithin(server, shutdownTimeoutMs + 2000)).toBeLessThan(shutdownTimeoutMs + 2000);
      const acknowledged = sent.filter((answer) => answer.status === 200);
      const again = await startServerProcess(env(dataDir));
      try {
        for (const ack of acknowledged) {
          const replay = await patch(again, subscriberId, ack.body, ack.key);
          expect(replay.status).toBe(200);
          expect(replay.text).toBe(ack.text);
        }
        console.log(
          `full disk (${panics ? "PANIC" : "ERROR"}): ${acknowledged.length - 1} PATCHes acknowledged before the disk filled, 1 after it was freed; all replayed after a restart`,
        );

        // The disk full again: SIGTERM ends the process within SHUTDOWN_TIMEOUT_MS all the same.
        disk.fill(1 * mb);
        expect((await writeUntilFull(again, subscriberId)).at(-1)?.status).toBe(503);
        expect(await stopWithin(again, shutdownTimeoutMs + 2000)).toBeLessThan(shutdownTimeoutMs + 2000);
      } finally {
        if (again.child.exitCode === null) again.child.kill("SIGKILL");
      }
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
    }
  }, 180_000);
});
