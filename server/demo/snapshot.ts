/**
 * Start-up snapshots of the demo database. A fresh in-memory PGlite runs initdb (about 3 s on a 2-core machine) and
 * migrating and generating the demo data take 2 s more; copying a data directory that already holds all of it and
 * opening the copy takes about 1 s. So the first start with a given set of demo options builds that directory (the
 * snapshot), and every start, that one included, runs on a private copy of it that is deleted at exit: the data is as
 * throwaway as in memory. Copying its 40-70 MB still takes 0.3-1 s of a 2-core machine, so each start also makes, in
 * the background, a spare copy for the next one to take (a rename) instead of copying. A snapshot's name is a hash of everything that decides its content (the migrations, the
 * store and demo code, the contract's vocabulary, the demo options, PGlite's version), so a change to any of them
 * makes a new one.
 */

import { createHash, randomBytes } from "node:crypto";
import {
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { vocabulary } from "@novu-query/contract/factories";
import { cacheDir } from "../cache-dir.js";
import { pgliteVersion } from "../store/pglite-template.js";
import type { DemoOptions } from "./options.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The code a snapshot's content follows from: the store (migrations included) and the demo generator. */
const sourceDirs = [join(here, "..", "store"), here];

/** Where snapshots are kept: the project's node_modules/.cache when there is one (as other tools do), else the temp dir. */
export function defaultSnapshotDir(cwd = process.cwd()): string {
  return cacheDir("demo-snapshots", cwd);
}

/** The folder a snapshot of the demo data with these options has (or would have) in `dir`. */
export function snapshotPath(dir: string, demo: DemoOptions): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ ...demo, anchor: demo.anchor.toISOString(), pglite: pgliteVersion() }));
  // The words of the data come from the contract package's vocabulary, outside these folders.
  hash.update(JSON.stringify(vocabulary));
  for (const sourceDir of sourceDirs) {
    for (const file of readdirSync(sourceDir, { recursive: true }).map(String).sort()) {
      if (!/\.(ts|js|sql)$/.test(file) || file.endsWith(".d.ts")) continue;
      hash.update(file).update(readFileSync(join(sourceDir, file)));
    }
  }
  return join(dir, `demo-${hash.digest("hex").slice(0, 16)}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface WorkingCopy {
  /** The data directory to open. */
  dataDir: string;
  /** Whether this start had to build the snapshot first. */
  built: boolean;
  /** Whether this start took a spare copy made by an earlier one (else it copied the snapshot itself). */
  tookSpare: boolean;
  /**
   * Makes the spare copy for the next start, unless one is there already; resolves when it is in place. Only a
   * complete copy is ever renamed into the spares folder.
   */
  prepareSpare(): Promise<void>;
  /** Deletes the copy (at exit); a spare this process had not finished is left for the next start to delete. */
  remove(): void;
}

/** Deletes the entries of `dir` named `<pid>-...` (or `<prefix><pid>-...`) whose process is gone. */
function removeOrphans(dir: string, prefix = ""): void {
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(entry.slice(prefix.length).split("-")[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      rmSync(join(dir, entry), { recursive: true, force: true });
    }
  }
}

const unusedAfterMs = 14 * 86_400_000;

/** Marks a snapshot as used now: snapshots unused for two weeks are deleted when another is built. */
function touch(path: string): void {
  const now = new Date();
  utimesSync(path, now, now);
}

/** Deletes the snapshots in `dir` unused for two weeks (made for other options or older code), and their spares. */
function removeUnused(dir: string): void {
  for (const entry of readdirSync(dir)) {
    if (!/^demo-[0-9a-f]+$/.test(entry) || Date.now() - statSync(join(dir, entry)).mtimeMs < unusedAfterMs) continue;
    rmSync(join(dir, entry), { recursive: true, force: true });
    const spares = join(dir, "spares");
    if (!existsSync(spares)) continue;
    for (const spare of readdirSync(spares).filter((name) => name.startsWith(`${entry}.`))) {
      rmSync(join(spares, spare), { recursive: true, force: true });
    }
  }
}

/** A copy-on-write clone where the file system has them (btrfs, XFS, APFS), a plain copy elsewhere. */
const copyDir = (from: string, to: string) => cpSync(from, to, { recursive: true, mode: constants.COPYFILE_FICLONE });

/**
 * The same copy on a worker thread, then renamed to `final`. A copy of a thousand files made with fs.promises.cp
 * would advance only when the main thread is idle, which it is not while the server starts.
 */
function copyDirInWorker(from: string, to: string, final: string): Promise<void> {
  const code = `
    const { constants, cpSync, renameSync } = require("node:fs");
    const { from, to, final } = require("node:worker_threads").workerData;
    cpSync(from, to, { recursive: true, mode: constants.COPYFILE_FICLONE });
    renameSync(to, final);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { from, to, final } });
    worker.unref();
    worker.once("error", reject);
    worker.once("exit", (exitCode) => (exitCode === 0 ? resolve() : reject(new Error(`copy exited ${exitCode}`))));
  });
}

/**
 * A private copy of the snapshot for these options, building the snapshot first when there is none: `seed` fills a
 * fresh data directory (migrations and demo data), which is renamed into place once complete, so that processes
 * starting at once never see half a snapshot. A spare copy left by an earlier start is taken when there is one (two
 * processes cannot take the same one: the rename succeeds for one of them). Copies and unfinished spares left behind by
 * processes that died are deleted here.
 */
export async function demoWorkingCopy(
  dir: string,
  demo: DemoOptions,
  seed: (dataDir: string) => Promise<void>,
): Promise<WorkingCopy> {
  const snapshot = snapshotPath(dir, demo);
  const name = basename(snapshot);
  let built = false;
  if (!existsSync(snapshot)) {
    const partial = `${snapshot}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    await seed(partial);
    try {
      renameSync(partial, snapshot);
      built = true;
      removeUnused(dir);
    } catch (error) {
      // Another process finished the same snapshot first: use that one.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(snapshot)) throw error;
    }
  }
  touch(snapshot);
  const running = join(dir, "running");
  const spares = join(dir, "spares");
  mkdirSync(running, { recursive: true });
  mkdirSync(spares, { recursive: true });
  removeOrphans(running);
  removeOrphans(spares, "partial-");

  const dataDir = join(running, `${process.pid}-${Date.now()}`);
  let tookSpare = false;
  for (const spare of readdirSync(spares).filter((entry) => entry.startsWith(`${name}.`))) {
    try {
      renameSync(join(spares, spare), dataDir);
      tookSpare = true;
      break;
    } catch {
      // Another process took this one.
    }
  }
  if (!tookSpare) copyDir(snapshot, dataDir);

  let making: string | undefined;
  return {
    dataDir,
    built,
    tookSpare,
    async prepareSpare() {
      if (making || readdirSync(spares).some((entry) => entry.startsWith(`${name}.`))) return;
      // Unique within this process too: two copies of one process may make their spares in the same millisecond.
      const stamp = `${process.pid}-${Date.now()}-${randomBytes(4).toString("hex")}`;
      making = join(spares, `partial-${stamp}`);
      const spare = `${name}.${stamp}`;
      try {
        await copyDirInWorker(snapshot, making, join(spares, spare));
      } finally {
        rmSync(making, { recursive: true, force: true });
      }
      // Starts at the same moment may each have made one: one that finds another gives way, so at most one is kept.
      if (readdirSync(spares).some((entry) => entry.startsWith(`${name}.`) && entry !== spare)) {
        rmSync(join(spares, spare), { recursive: true, force: true });
      }
    },
    remove() {
      rmSync(dataDir, { recursive: true, force: true });
      // A spare still being made is left as it is: its copy runs on a worker thread that may still be writing, and
      // deleting under it could let it finish and rename a copy with files missing. The next start removes it
      // (`removeOrphans`: its process is gone).
    },
  };
}
