/**
 * The packages built and packed with `npm pack` once per test run, whichever test file asks first; the files that ask
 * meanwhile wait for it (building rewrites the packages' dist/ folders, so two builds at once would break each other).
 * The folder is per run (test/global-setup.ts names it and removes it afterwards).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { workspacePackages } from "../../scripts/packages.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The folder this run's tarballs go to. */
export function tarballsDir(): string {
  return process.env.NOVU_QUERY_TARBALLS ?? join(tmpdir(), `novu-query-tarballs-${process.pid}`);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function buildAndPack(dir: string): Record<string, string> {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/build-packages.ts"], { cwd: root, stdio: "pipe" });
  const tarballs: Record<string, string> = {};
  for (const pkg of workspacePackages) {
    const result = spawnSync("npm", ["pack", "--json", "--workspace", pkg.dir, "--pack-destination", dir], {
      cwd: root,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`npm pack ${pkg.dir} failed:\n${result.stdout}${result.stderr}`);
    tarballs[pkg.name] = join(dir, JSON.parse(result.stdout)[0].filename);
  }
  return tarballs;
}

/** Package name -> its tarball, built and packed once per run. */
export function packedTarballs(timeoutMs = 600_000): Record<string, string> {
  const dir = tarballsDir();
  const done = join(dir, "tarballs.json");
  const failed = join(dir, "failed.txt");
  mkdirSync(dir, { recursive: true });
  let builder = false;
  try {
    mkdirSync(join(dir, "lock"));
    builder = true;
  } catch {
    // Another test file is building them.
  }
  if (builder) {
    try {
      writeFileSync(done, JSON.stringify(buildAndPack(dir)));
    } catch (error) {
      writeFileSync(failed, String((error as Error).message));
      throw error;
    }
  }
  const until = Date.now() + timeoutMs;
  while (!existsSync(done)) {
    if (existsSync(failed)) throw new Error(`packing the packages failed:\n${readFileSync(failed, "utf8")}`);
    if (Date.now() > until) throw new Error(`the packages were not packed within ${timeoutMs} ms`);
    sleep(200);
  }
  return JSON.parse(readFileSync(done, "utf8"));
}

/** Removes the run's tarballs (global teardown). */
export function removeTarballs(): void {
  rmSync(tarballsDir(), { recursive: true, force: true });
}
