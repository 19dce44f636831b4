/**
 * A validating proxy: Prism in front of any implementation, checking every request and response against the spec.
 * Usage: npm run proxy -- <upstream-url> [--port 4020] [--errors]
 * Violations are printed as they happen and sent back in the `sl-violations` response header;
 * with --errors, a response that breaks the contract is replaced by an error answer.
 */
import { parseArgs } from "node:util";
import { specFile, startPrism } from "./prism.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: "string", default: "4020" },
    host: { type: "string", default: "127.0.0.1" },
    errors: { type: "boolean", default: false },
  },
});
const upstream = positionals[0];
if (!upstream || !/^https?:\/\//.test(upstream)) {
  process.stderr.write("Usage: npm run proxy -- <upstream-url> [--port 4020] [--errors]\n");
  process.exit(2);
}
const prism = await startPrism(
  ["proxy", specFile, upstream, ...(values.errors ? ["--errors"] : [])],
  Number(values.port),
  values.host,
);
prism.child.stdout?.pipe(process.stdout);
prism.child.stderr?.pipe(process.stderr);
process.stdout.write(`\nValidating proxy on ${prism.url} -> ${upstream}\n\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void prism.stop().then(() => process.exit(0)));
