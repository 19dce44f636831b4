/**
 * One budget for every property-based test (fast-check). FUZZ_RUNS is how many requests each fuzzer property sends:
 * 2,000 by default, as `npm test` runs, and 10,000 at the deep setting (`FUZZ_RUNS=10000 npm test`, what CI may run on
 * a schedule or on demand). Every other property states its runs at the deep setting and gets the same share of the
 * budget (`runs(n)`), never fewer than `min`. A failing property prints its seed; `FUZZ_SEED=<seed>` replays it.
 */
import type fc from "fast-check";

/** FUZZ_RUNS at the deep setting: each property's runs are stated at it. */
export const deepFuzzRuns = 10_000;

function positiveInteger(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number above 0, not "${raw}"`);
  return value;
}

/** Requests per fuzzer property. */
export const fuzzRuns = positiveInteger(process.env.FUZZ_RUNS, 2_000, "FUZZ_RUNS");

/** The seed to replay (FUZZ_SEED), or undefined for each property's own. */
export const fuzzSeed =
  process.env.FUZZ_SEED === undefined || process.env.FUZZ_SEED === ""
    ? undefined
    : Number.parseInt(process.env.FUZZ_SEED, 10);

/** A property's runs in this budget, from its runs at the deep setting. */
export function runs(atDeep: number, min = 25): number {
  return Math.max(min, Math.round((atDeep * fuzzRuns) / deepFuzzRuns));
}

/**
 * fast-check's parameters for a property: its share of the budget (never under `min`: a property whose assertions
 * count what its runs met passes its own count), and FUZZ_SEED over its own seed.
 */
export function fuzzParameters<T>(atDeep: number, seed?: number, min?: number): fc.Parameters<T> {
  const chosen = fuzzSeed ?? seed;
  return { numRuns: runs(atDeep, min), ...(chosen !== undefined && { seed: chosen }) };
}
