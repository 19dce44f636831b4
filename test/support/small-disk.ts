/**
 * A small disk of its own for a test that fills one: a tmpfs of a given size, mounted on a temporary directory. It
 * needs root (mount); where it cannot be made, `mountSmallDisk` says why, and the test is skipped in those words.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
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

export function mountSmallDisk(sizeMb: number): SmallDisk | { reason: string } {
  if (process.getuid?.() !== 0) return { reason: "mounting a small tmpfs needs root, and this run is not root" };
  const dir = mkdtempSync(join(tmpdir(), "small-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `mount -t tmpfs failed here: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}` };
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
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
