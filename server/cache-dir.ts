/** Where the server keeps a cache named `name`: the project's node_modules/.cache when there is one, else the temp dir. */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function cacheDir(name: string, cwd = process.cwd()): string {
  const nodeModules = join(cwd, "node_modules");
  return existsSync(nodeModules)
    ? join(nodeModules, ".cache", "novu-query", name)
    : join(tmpdir(), `novu-query-${name}`);
}
