/**
 * One owner per PGlite data directory. PGlite has no postmaster to refuse a second process: two processes on one
 * directory each keep their own copy of the database in memory and overwrite each other's files, so one's
 * acknowledged writes are silently lost (measured: every one of 6,277 PATCHes). Whoever opens the directory takes
 * this lock first (the server, `keys create`, `keys revoke-demo`, the loaders: every caller of `openStore`), and a
 * second is refused with the holder's pid before it reads a byte.
 *
 * The lock is a file created exclusively (O_EXCL) in the directory, holding the owner's pid and host. It is removed
 * when the store closes and when the process exits; after a kill -9 it stays, and the next owner takes it over once
 * no process of that pid is alive on this host (as PostgreSQL treats its postmaster.pid).
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";

export const lockFileName = "novu-query.lock";

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/** A data directory another process holds: what a second server or CLI is refused with. */
export class DataDirectoryInUse extends Error {
  override name = "DataDirectoryInUse";
  readonly holder: LockHolder;

  constructor(dataDir: string, holder: LockHolder) {
    const who = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.host}`;
    super(
      `The data directory ${dataDir} is in use by ${who} (since ${holder.since}): one process at a time may open it, ` +
        "or writes are lost. Stop that process first (a CLI command such as `keys create` runs while the server is " +
        `stopped), or use another DATA_DIR. If no such process runs, delete ${join(dataDir, lockFileName)}.`,
    );
    this.holder = holder;
  }
}

/** The directories this process holds, so that it does not take one twice. */
const heldHere = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of that pid exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof holder.pid !== "number") return undefined;
    return { pid: holder.pid, host: String(holder.host ?? ""), since: String(holder.since ?? "an unknown time") };
  } catch {
    return undefined;
  }
}

/** Creates the lock file, or returns false when one is there already. */
function create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

export interface DataDirectoryLock {
  /** Gives the directory up (idempotent). */
  release(): void;
}

/** Takes the data directory for this process, or throws DataDirectoryInUse naming the process that holds it. */
export function lockDataDirectory(dataDir: string): DataDirectoryLock {
  const dir = resolve(dataDir);
  const path = join(dir, lockFileName);
  if (heldHere.has(dir)) throw new DataDirectoryInUse(dataDir, readHolder(path) ?? ownHolder());
  mkdirSync(dir, { recursive: true });
  if (!create(path)) {
    const holder = readHolder(path);
    // A lock left by a process that is gone (kill -9, a crash, a container restarted with the same pid) is taken over;
    // one of another host cannot be checked and is respected.
    const stale =
      holder === undefined || (holder.host === hostname() && (holder.pid === process.pid || !alive(holder.pid)));
    if (!stale) throw new DataDirectoryInUse(dataDir, holder);
    rmSync(path, { force: true });
    if (!create(path)) throw new DataDirectoryInUse(dataDir, readHolder(path) ?? ownHolder());
  }
  heldHere.add(dir);
  const release = () => {
    if (!heldHere.delete(dir)) return;
    process.off("exit", release);
    if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
  };
  process.on("exit", release);
  return { release };
}

function ownHolder(): LockHolder {
  return { pid: process.pid, host: hostname(), since: "earlier in this process" };
}
