/** How the benchmarks start the server they measure on the bench data, and the Node it runs on. */
import { execFileSync } from "node:child_process";

/**
 * The benchmarked server's environment on a database of bench data: production, nothing seeded, and the bench data's
 * keys allowed (they are the public demo keys, which a production start holds only when told to). It sets none of the
 * tuning settings: the server runs on its defaults, but for the log level, which every process the benchmark starts
 * runs at `warn` (scripts/processes.ts `startCommand`): no line per request.
 */
export function benchServerEnv(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, NODE_ENV: "production", SEED_DEMO_DATA: "false", ALLOW_DEMO_KEYS: "true" };
}

/**
 * Node 24, the current LTS that the README tells users to run (installed from npm on first use): its binary and its
 * version.
 */
export function node24(): { binary: string; version: string } {
  const binary = execFileSync("npx", ["-y", "node@24", "-p", "process.execPath"], { encoding: "utf8" }).trim();
  return { binary, version: execFileSync(binary, ["--version"], { encoding: "utf8" }).trim() };
}
