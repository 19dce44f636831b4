#!/usr/bin/env node
/**
 * The skeleton's command.
 *   novu-query-express init [dir] [--router]   write what is missing of a service on the skeleton in dir (default: here)
 */
import { resolve } from "node:path";
import { init } from "./init.js";

const usage = `Usage:
  novu-query-express init [dir]   write the app entry (src/server.ts), the API-key hook (src/auth.ts), tsconfig.json
                                  and a handler stub per operation (src/handlers/) where they are missing; run it
                                  again after upgrading the contract to add stubs for new operations
  novu-query-express init [dir] --router
                                  the same for an app you have: src/contract-router.ts, a router to mount in it
                                  (app.use("/api", contractRouter)), instead of src/server.ts
  novu-query-express --help       this text
`;

const check = "Check it with `npx @novu-query/conformance --base-url http://127.0.0.1:8080 --api-key dev-key`.";

/** What to do next, by what this run wrote: a new service, stubs for operations the contract gained, or nothing. */
function nextSteps(written: string[]): string {
  const stubs = written
    .filter((file) => /^src\/handlers\/.+\.ts$/.test(file) && !file.endsWith("/index.ts"))
    .map((file) => file.replace(/^src\/handlers\/(.+)\.ts$/, "$1"));
  if (written.includes("src/contract-router.ts")) {
    return (
      '\nMount it in your app: app.use("/api", contractRouter) and app.use("/api", contractRouter.errorHandler)\n' +
      `(src/contract-router.ts says how). Every operation answers 501 until its handler in src/handlers/ is written.\n`
    );
  }
  if (written.includes("src/server.ts")) {
    return (
      "\nStart it with `npx tsx src/server.ts` (or `npx tsc` and `node dist/server.js`): every operation answers 501 until\n" +
      `its handler in src/handlers/ is written. ${check}\n`
    );
  }
  if (stubs.length > 0) {
    return (
      `\n${stubs.join(", ")} ${stubs.length === 1 ? "has a stub that answers" : "have stubs that answer"} 501 until written ` +
      `(src/handlers/); every other handler is as it was. ${check}\n`
    );
  }
  return "";
}

const [command, ...rest] = process.argv.slice(2);
const router = rest.includes("--router");
const positional = rest.filter((arg) => arg !== "--router");
const dir = positional[0] ?? ".";
if (command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(usage);
} else if (command === "init" && positional.length <= 1 && !dir.startsWith("-")) {
  const { written, notes } = init(resolve(dir), { router });
  process.stdout.write(
    written.length > 0
      ? `Wrote:\n${written.map((file) => `  ${file}\n`).join("")}`
      : "Nothing to write: every file is there, and every operation of the contract has a handler.\n",
  );
  if (notes.length > 0) process.stdout.write(`\nStill to do:\n${notes.map((note) => `  ${note}\n`).join("")}`);
  process.stdout.write(nextSteps(written));
} else {
  process.stderr.write(
    command === undefined ? usage : `Unknown command "${process.argv.slice(2).join(" ")}".\n${usage}`,
  );
  process.exitCode = 2;
}
