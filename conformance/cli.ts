#!/usr/bin/env node
/**
 * Checks any implementation of the contract, rule by rule.
 * Usage: novu-query-conformance --base-url http://host:port --api-key KEY [--other-api-key KEY] [options]
 * Prints one line per rule and exits non-zero when any rule fails.
 */
import { parseArgs } from "node:util";
import type { Level } from "./context.js";
import { runConformance } from "./run.js";

const usage = `Usage: novu-query-conformance --base-url <url> --api-key <key> [options]

  --base-url <url>             where the implementation answers (with its base path, if any)
  --api-key <key>              a key of a test environment with data (a dozen subscribers and notifications)
  --other-api-key <key>        a key of a second environment with data: runs the isolation rules
  --level shape|behaviour      shape: the rules a static mock passes; behaviour (default): all of them
  --subscriber <subscriberId>  the subscriber the PATCH rules change and put back (default: the first whose every
                               value the contract accepts on write, so that each can be put back)
  --read-only                  send no PATCH: the rules that write are reported as not run
  --requests-per-second <n>    the pace (default 50; 0: as fast as answered); a 429's Retry-After is waited out
  --read-limit <n>             subscribers and notifications the oracle reads (default 2000): past it, a window
  --seed <n>                   seeds the generated queries (default 1), to repeat a run exactly
  --seeds <n>                  how many seeds the generated values are drawn with, from --seed on (default 3)
  --rule <id or prefix.>       only this rule (repeat for more; "search.filter." for a group), to rerun a failure
`;

let values: Record<string, string | string[] | boolean | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      "base-url": { type: "string" },
      "api-key": { type: "string" },
      "other-api-key": { type: "string" },
      level: { type: "string", default: "behaviour" },
      subscriber: { type: "string" },
      "requests-per-second": { type: "string" },
      "read-limit": { type: "string" },
      seed: { type: "string" },
      seeds: { type: "string" },
      "read-only": { type: "boolean" },
      rule: { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const text = (name: string) => values[name] as string | undefined;
/** A non-negative whole number option, undefined when absent; exits with the usage when it is not one. */
const count = (name: string): number | undefined => {
  const raw = text(name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) {
    process.stderr.write(`--${name} must be a whole number, got ${raw}\n${usage}`);
    process.exit(2);
  }
  return Number(raw);
};
const baseUrl = text("base-url");
const apiKey = text("api-key");
const level = text("level") as Level;
if (!baseUrl || !apiKey || !["shape", "behaviour"].includes(level)) {
  process.stderr.write(usage);
  process.exit(2);
}
const target = {
  baseUrl,
  apiKey,
  level,
  otherApiKey: text("other-api-key"),
  subscriberId: text("subscriber"),
  requestsPerSecond: count("requests-per-second"),
  readLimit: count("read-limit"),
  seed: count("seed"),
  seeds: count("seeds"),
  readOnly: values["read-only"] === true,
  only: values.rule as string[] | undefined,
};

process.stdout.write(`Conformance of ${baseUrl} (${level === "shape" ? "shape rules only" : "all rules"})\n\n`);
const report = await runConformance(target, (result) => {
  const mark = result.todo ? "…" : result.skipped ? "-" : result.passed ? "✓" : "✗";
  let line = `  ${mark} ${result.id.padEnd(32)} ${result.text}\n`;
  if (result.skipped) line += `      not run: ${result.skipped}\n`;
  if (result.reason) line += `      ${result.reason}\n`;
  for (const note of result.notes ?? []) line += `      (${note})\n`;
  process.stdout.write(line);
});
const { requests, rateLimitedMs } = report.traffic;
process.stdout.write(
  `\n${requests} requests in ${(report.durationMs / 1000).toFixed(1)} s${
    rateLimitedMs ? ` (${(rateLimitedMs / 1000).toFixed(1)} s waiting out 429s)` : ""
  }\n`,
);
process.stdout.write(
  `${report.passed} passed, ${report.failed} failed${report.skipped ? `, ${report.skipped} skipped` : ""}${
    report.todo ? `, ${report.todo} todo (operations no rule checks yet)` : ""
  }\n`,
);
process.exitCode = report.failed > 0 ? 1 : 0;
