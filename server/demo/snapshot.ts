/**
 * Start-up snapshots of the demo database. A fresh in-memory PGlite runs initdb (about 3 s on a 2-core machine) and
 * migrating and generating the demo data take 2 s more; copying a data directory that already holds all of it and
 * opening the copy takes about 1 s. So the first start with a given set of demo options builds that directory (the
 * snapshot), and every start, that one included, runs on a private copy of it that is deleted at exit: the data is as
 * throwaway as in memory. A snapshot's name is a hash of everything that decides its content (the migrations, the
 * store and demo code, the demo options, PGlite's version), so a change to any of them makes a new one.
 */
import { createHash } from "node:crypto";
import { constants, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DemoOptions } from "./options.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The code a snapshot's content follows from: the store (migrations included) and the demo generator. */
const sourceDirs = [join(here, "..", "store"), here];

/** Where snapshots are kept: the project's node_modules/.cache when there is one (as other tools do), else the temp dir. */
export function defaultSnapshotDir(cwd = process.cwd()): string {
  const nodeModules = join(cwd, "node_modules");
  return existsSync(nodeModules)
    ? join(nodeModules, ".cache", "novu-query", "demo-snapshots")
    : join(tmpdir(), "novu-query-demo-snapshots");
}

function pgliteVersion(): string {
  // The package does not export its package.json; walk up from its main file to it.
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
}

/** The folder a snapshot of the demo data with these options has (or would have) in `dir`. */
export function snapshotPath(dir: string, demo: DemoOptions): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ ...demo, anchor: demo.anchor.toISOString(), pglite: pgliteVersion() }));
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
  /** Deletes the copy (at exit). */
  remove(): void;
}

/**
 * A private copy of the snapshot for these options, building the snapshot first when there is none: `seed` fills a
 * fresh data directory (migrations and demo data), which is renamed into place once complete, so that processes
 * starting at once never see half a snapshot. Copies left behind by processes that died are deleted here.
 */
export async function demoWorkingCopy(
  dir: string,
  demo: DemoOptions,
  seed: (dataDir: string) => Promise<void>,
): Promise<WorkingCopy> {
  const snapshot = snapshotPath(dir, demo);
  let built = false;
  if (!existsSync(snapshot)) {
    const partial = `${snapshot}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    await seed(partial);
    try {
      renameSync(partial, snapshot);
      built = true;
    } catch (error) {
      // Another process finished the same snapshot first: use that one.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(snapshot)) throw error;
    }
  }
  const running = join(dir, "running");
  mkdirSync(running, { recursive: true });
  for (const entry of readdirSync(running)) {
    const pid = Number(entry.split("-")[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      rmSync(join(running, entry), { recursive: true, force: true });
    }
  }
  const dataDir = join(running, `${process.pid}-${Date.now()}`);
  // A copy-on-write clone where the file system has them (btrfs, XFS, APFS), a plain copy elsewhere.
  cpSync(snapshot, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE });
  return { dataDir, built, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}
