/**
 * Writes a stub handler for every operation of the spec that has none, and registers it in server/handlers/index.ts,
 * so that the server compiles and starts after the spec gains an operation (a new path, or a new method on a path
 * that has one). The same scaffold as a backend team's `npx novu-query-express init` (express/scaffold.ts). Part of
 * `npm run build`; on its own: npm run scaffold. It never changes a handler that exists.
 */
import { fileURLToPath } from "node:url";
import { scaffold } from "../express/scaffold.js";
import { exitWithUsageIfAsked } from "./usage.js";

exitWithUsageIfAsked(
  "Usage: npm run scaffold [-- --quiet]   a stub handler in server/handlers/ for every operation without one",
);
const { operationIds } = await import("../generated/operations.js");
const handlersDir = fileURLToPath(new URL("../server/handlers/", import.meta.url));
const written = scaffold(operationIds, handlersDir);
if (written.length > 0) {
  console.log(
    `Wrote ${written.length} stub handler(s), each answering 501 until you implement it:\n` +
      written.map((file) => `  ${file}`).join("\n"),
  );
} else if (!process.argv.includes("--quiet")) {
  console.log("Every operation in the spec has a handler; nothing to scaffold.");
}
