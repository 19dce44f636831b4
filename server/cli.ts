#!/usr/bin/env node
/**
 * The server package's command.
 *   novu-query-server                 the reference server; settings from environment variables (README, "Settings")
 *   novu-query-server mock            the stateful mock: in memory, demo data, port 4011 unless PORT is set, and CORS
 *                                     for any origin unless CORS_ORIGINS is set (the server itself keeps CORS off)
 *   novu-query-server keys create --environment <name> [--retention-days <days>]
 *   novu-query-server keys revoke-demo
 */
import { keysUsage, runKeysCommand } from "./cli/keys.js";
import { loadConfig } from "./config.js";
import { runServer, StartRefused } from "./main.js";

const usage = `Usage:
  novu-query-server            start the reference server (PORT, DATABASE_URL, DATA_DIR, ... from the environment)
  novu-query-server mock       start the stateful mock: in memory with demo data, on port 4011 unless PORT is set,
                               callable from a page on any origin unless CORS_ORIGINS says otherwise, logging
                               warnings only unless LOG_LEVEL says otherwise
  novu-query-server keys create --environment <name> [--retention-days <days>]
  novu-query-server keys revoke-demo   remove the public demo keys
`;

const [command, ...rest] = process.argv.slice(2);
/** A refused start says why, without a stack; anything else is a crash as before. */
async function start(env: Record<string, string | undefined>): Promise<void> {
  try {
    await runServer(loadConfig(env));
  } catch (error) {
    if (!(error instanceof StartRefused)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

if (command === undefined || command === "start") {
  await start(process.env);
} else if (command === "mock") {
  const { DATABASE_URL: _url, DATABASE_READ_URL: _read, DATA_DIR: _dir, ...env } = process.env;
  // A mock for a frontend's development: its banner, and warnings; a log line per request only when asked (LOG_LEVEL).
  const mock = {
    PORT: env.PORT ?? "4011",
    CORS_ORIGINS: env.CORS_ORIGINS ?? "*",
    SEED_DEMO_DATA: "true",
    // A mock's keys are the public demo keys by design.
    ALLOW_DEMO_KEYS: "true",
    LOG_LEVEL: env.LOG_LEVEL || "warn",
  };
  await start({ ...env, ...mock });
} else if (command === "keys" && (rest.includes("--help") || rest.includes("-h"))) {
  process.stdout.write(`${keysUsage}\n`);
} else if (command === "keys") {
  try {
    const printed = await runKeysCommand(rest, process.env);
    process.stdout.write(`${printed}\n`);
    if (rest[0] === "create") {
      process.stderr.write(
        "Keep this key: it is not stored and cannot be shown again. Send it as `Authorization: ApiKey <key>`.\n",
      );
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
} else if (command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(usage);
} else {
  process.stderr.write(`Unknown command "${command}".\n${usage}`);
  process.exitCode = 2;
}
