/**
 * Checks any implementation of the contract, rule by rule.
 * Usage: npm run conformance -- --base-url http://host:port --api-key KEY [--level shape|behaviour] [--subscriber ID]
 * Prints one line per rule and exits non-zero when any rule fails.
 */
import { parseArgs } from "node:util";
import { ConformanceContext, type Level } from "./context.js";
import { rules } from "./rules.js";

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    "api-key": { type: "string" },
    level: { type: "string", default: "behaviour" },
    subscriber: { type: "string" },
  },
});
const baseUrl = values["base-url"];
const apiKey = values["api-key"];
const level = values.level as Level;
if (!baseUrl || !apiKey || !["shape", "behaviour"].includes(level)) {
  process.stderr.write(
    "Usage: npm run conformance -- --base-url <url> --api-key <key> [--level shape|behaviour] [--subscriber <subscriberId>]\n",
  );
  process.exit(2);
}

const context = new ConformanceContext({ baseUrl, apiKey, subscriberId: values.subscriber });
const selected = rules.filter((rule) => level === "behaviour" || rule.level === "shape");
process.stdout.write(`Conformance of ${baseUrl} (${level === "shape" ? "shape rules only" : "all rules"})\n\n`);
let passed = 0;
let failed = 0;
for (const rule of selected) {
  try {
    await rule.run(context);
    passed += 1;
    process.stdout.write(`  ✓ ${rule.id.padEnd(32)} ${rule.text}\n`);
  } catch (error) {
    failed += 1;
    process.stdout.write(`  ✗ ${rule.id.padEnd(32)} ${rule.text}\n      ${(error as Error).message}\n`);
  }
}
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 ? 1 : 0;
