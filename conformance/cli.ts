#!/usr/bin/env node
/**
 * Checks any implementation of the contract, rule by rule.
 * Usage: novu-query-conformance --base-url http://host:port --api-key KEY [--level shape|behaviour] [--subscriber ID]
 * Prints one line per rule and exits non-zero when any rule fails.
 */
import { parseArgs } from "node:util";
import type { Level } from "./context.js";
import { runConformance } from "./run.js";

const usage =
  "Usage: novu-query-conformance --base-url <url> --api-key <key> [--level shape|behaviour] [--subscriber <subscriberId>]\n";

let values: { "base-url"?: string; "api-key"?: string; level?: string; subscriber?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      "base-url": { type: "string" },
      "api-key": { type: "string" },
      level: { type: "string", default: "behaviour" },
      subscriber: { type: "string" },
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
const baseUrl = values["base-url"];
const apiKey = values["api-key"];
const level = values.level as Level;
if (!baseUrl || !apiKey || !["shape", "behaviour"].includes(level)) {
  process.stderr.write(usage);
  process.exit(2);
}

process.stdout.write(`Conformance of ${baseUrl} (${level === "shape" ? "shape rules only" : "all rules"})\n\n`);
const report = await runConformance({ baseUrl, apiKey, level, subscriberId: values.subscriber }, (result) => {
  process.stdout.write(
    result.todo
      ? `  … ${result.id.padEnd(32)} ${result.text}\n`
      : result.passed
        ? `  ✓ ${result.id.padEnd(32)} ${result.text}\n`
        : `  ✗ ${result.id.padEnd(32)} ${result.text}\n      ${result.reason}\n`,
  );
});
process.stdout.write(
  `\n${report.passed} passed, ${report.failed} failed${report.todo ? `, ${report.todo} todo (operations no rule checks yet)` : ""}\n`,
);
process.exitCode = report.failed > 0 ? 1 : 0;
