/**
 * What a start announces once it answers: a banner for people, then one JSON log line for programs (the ready line).
 *
 *   {"level":30,"time":...,"msg":"ready","api":"http://127.0.0.1:3000","docs":".../docs","spec":".../openapi.json",
 *    "database":"PGlite in memory ...","demoKeys":{"Production":"b23e...","Development":"4b2c..."}}
 *
 * The ready line is written at every LOG_LEVEL; tools (the tests, the benchmark) read it with `readyLineIn`, never the
 * banner, whose words are free to change. The ready line is written last (pino writes it asynchronously, on its own
 * stream), so it usually follows the banner; a reader that needs the banner waits for it (test/server/start.test.ts).
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { DemoKeys } from "./demo-keys.js";

export interface ReadyLine {
  msg: "ready";
  api: string;
  docs: string;
  spec: string;
  database: string;
  /** Environment name -> its public demo key (none without demo data). */
  demoKeys: Record<string, string>;
}

/** The last ready line in a process's output, or undefined while it has printed none. */
export function readyLineIn(output: string): ReadyLine | undefined {
  const lines = output.split("\n").filter((line) => line.startsWith("{") && line.includes('"msg":"ready"'));
  const last = lines.at(-1);
  return last === undefined ? undefined : (JSON.parse(last) as ReadyLine);
}

function banner(ready: ReadyLine, config: Config, exampleSubscriberId: string | undefined): string[] {
  const origins = config.corsOrigins.includes("*")
    ? "any (CORS for every origin)"
    : config.corsOrigins.length > 0
      ? config.corsOrigins.join(", ")
      : "none: no CORS headers (set CORS_ORIGINS to call the API from a page on another origin)";
  const keys = Object.entries(ready.demoKeys);
  const first = keys[0]?.[1];
  return [
    "",
    `Notification query API (reference server) on ${ready.database}`,
    `  API        ${ready.api}`,
    `  Docs       ${ready.docs}`,
    `  Spec       ${ready.spec}`,
    `  Origins    ${origins}`,
    ...(keys.length
      ? [
          "Demo API keys (send as `Authorization: ApiKey <key>`):",
          ...keys.map(([name, key]) => `  ${name.padEnd(12)} ${key}`),
        ]
      : []),
    ...(first
      ? [
          "Try:",
          `  curl -H "Authorization: ApiKey ${first}" "${ready.api}/v1/notifications?limit=2"`,
          ...(exampleSubscriberId
            ? [
                `  curl -X PATCH -H "Authorization: ApiKey ${first}" -H "Content-Type: application/json" \\`,
                `    -d '{"locale":"en_US"}' "${ready.api}/v2/subscribers/${exampleSubscriberId}"`,
              ]
            : []),
        ]
      : []),
    "",
  ];
}

/** Writes the banner, then the ready line (whatever LOG_LEVEL says). */
export function announceReady(
  base: string,
  database: string,
  demo: DemoKeys,
  config: Config,
  logger: Logger,
): ReadyLine {
  const ready: ReadyLine = {
    msg: "ready",
    api: base,
    docs: `${base}/docs`,
    spec: `${base}/openapi.json`,
    database,
    demoKeys: demo.keys,
  };
  process.stdout.write(`${banner(ready, config, demo.exampleSubscriberId).join("\n")}\n`);
  const { msg, ...fields } = ready;
  logger.child({}, { level: "info" }).info(fields, msg);
  return ready;
}
