/**
 * A small disk of its own for a test that fills one: a tmpfs of a given size, mounted on a temporary directory. It
 * needs root (mount); where it cannot be made, `mountSmallDisk` says why, and the test is skipped in those words. With
 * `at`, the disk is mounted on that directory, starting with a copy of what it held (which shows again, as it was, once
 * the disk is unmounted), so that one part of a tree, such as a database's WAL, has a disk of its own.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  dir: string;
  /** Bytes free for an ordinary user of the disk. */
  free(): number;
  /** Writes a file that leaves `leaveBytes` free (or as close as the disk's blocks allow). */
  fill(leaveBytes: number): void;
  /** Removes what `fill` wrote. */
  unfill(): void;
  unmount(): void;
}

export function mountSmallDisk(sizeMb: number, at?: string): SmallDisk | { reason: string } {
  if (process.getuid?.() !== 0) return { reason: "mounting a small tmpfs needs root, and this run is not root" };
  const dir = at ?? mkdtempSync(join(tmpdir(), "small-disk-"));
  const held = at === undefined ? undefined : mkdtempSync(join(tmpdir(), "small-disk-held-"));
  if (held !== undefined) cpSync(dir, held, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    if (at === undefined) rmSync(dir, { recursive: true, force: true });
    if (held !== undefined) rmSync(held, { recursive: true, force: true });
    return { reason: `mount -t tmpfs failed here: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}` };
  }
  if (held !== undefined) {
    cpSync(held, dir, { recursive: true });
    rmSync(held, { recursive: true, force: true });
  }
  const filler = join(dir, "filler");
  const free = () => {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  };
  return {
    dir,
    free,
    fill(leaveBytes) {
      writeFileSync(filler, Buffer.alloc(Math.max(0, free() - leaveBytes)));
    },
    unfill() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync("umount", ["-l", dir]);
      if (at === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
