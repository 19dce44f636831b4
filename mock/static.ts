/**
 * The static mock: Prism serving the bundled spec's named examples.
 * Usage: npm run mock [-- --dynamic] [--port 4010] [--host 127.0.0.1]
 */
import { parseArgs } from "node:util";
import { specFile, startPrism } from "./prism.js";

const { values } = parseArgs({
  options: {
    dynamic: { type: "boolean", default: false },
    port: { type: "string", default: process.env.MOCK_PORT ?? "4010" },
    host: { type: "string", default: "127.0.0.1" },
  },
});
const prism = await startPrism(
  ["mock", specFile, ...(values.dynamic ? ["--dynamic"] : [])],
  Number(values.port),
  values.host,
);
prism.child.stdout?.pipe(process.stdout);
prism.child.stderr?.pipe(process.stderr);
process.stdout.write(
  `\nMock (${values.dynamic ? "dynamic data" : "the spec's named examples"}) on ${prism.url}\n` +
    `  Any key works; a missing Authorization header gets 401, an invalid request 422.\n` +
    `  Choose an answer with the Prefer header, e.g. "Prefer: code=404" or "Prefer: example=ListNotificationsEmpty".\n\n`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void prism.stop().then(() => process.exit(0)));
