/**
 * What `npm run bench:data` measured: it writes bench/results/load-<date>.json, and `npm run bench` reports the latest
 * one beside its own run (the load takes minutes and replaces the data, so the matrix does not repeat it).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LoadResult {
  startedAt: string;
  node: string;
  subscribers: number;
  notifications: number;
  /** Rows written (subscribers and notifications) and the seconds from the first to the kept counts recounted. */
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Rows a second of each table alone, and of the first and last tenth of it: steady as the tables grow? */
  tables: { table: string; rowsPerSecond: number; firstTenth: number; lastTenth: number }[];
  indexSeconds: number;
  vacuumSeconds: number;
  /** Where the batches' text was built (D64; absent in loads before it, which built them on the loader's thread). */
  batchesBuiltOn?: "the loader's thread" | "a worker thread";
}

export function writeLoadResult(dir: string, result: LoadResult): string {
  mkdirSync(join(dir, "results"), { recursive: true });
  const file = join(dir, "results", `load-${result.startedAt.slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/** The newest load result under `<dir>/results`, if any. */
export function latestLoad(dir: string): (LoadResult & { file: string }) | undefined {
  const results = join(dir, "results");
  if (!existsSync(results)) return undefined;
  const newest = readdirSync(results)
    .filter((name) => /^load-\d{4}-\d{2}-\d{2}\.json$/.test(name))
    .sort()
    .at(-1);
  if (!newest) return undefined;
  const file = join(results, newest);
  return { ...(JSON.parse(readFileSync(file, "utf8")) as LoadResult), file };
}
