#!/usr/bin/env node
/**
 * The mock package's command.
 *   novu-query-mock [--dynamic] [--port 4010] [--host 127.0.0.1]
 *       the static mock: Prism serving the bundled spec's named examples (or random data with --dynamic)
 *   novu-query-mock proxy <upstream-url> [--port 4020] [--host 127.0.0.1] [--errors]
 *       a validating proxy: Prism in front of any implementation, checking every request and response; violations are
 *       printed and sent back in the `sl-violations` header; with --errors a response that breaks the contract is
 *       replaced by an error answer
 */
import { parseArgs } from "node:util";
import { type PrismProcess, startMock, startProxy } from "./prism.js";

const usage = `Usage:
  novu-query-mock [--dynamic] [--port 4010] [--host 127.0.0.1]
  novu-query-mock proxy <upstream-url> [--port 4020] [--host 127.0.0.1] [--errors]
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        dynamic: { type: "boolean", default: false },
        errors: { type: "boolean", default: false },
        port: { type: "string" },
        host: { type: "string", default: "127.0.0.1" },
        help: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}

function port(fallback: string): number {
  const raw = values.port ?? fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) fail(`--port must be a port number, not "${raw}"`);
  return value;
}

let prism: PrismProcess;
if (positionals[0] === "proxy") {
  const upstream = positionals[1];
  if (!upstream || !/^https?:\/\//.test(upstream)) fail("proxy needs the upstream URL (http:// or https://)");
  prism = await startProxy({ upstream, port: port("4020"), host: values.host, errors: values.errors });
  process.stdout.write(`\nValidating proxy on ${prism.url} -> ${upstream}\n\n`);
} else if (positionals.length === 0) {
  prism = await startMock({ port: port(process.env.MOCK_PORT ?? "4010"), host: values.host, dynamic: values.dynamic });
  process.stdout.write(
    `\nMock (${values.dynamic ? "dynamic data" : "the spec's named examples"}) on ${prism.url}\n` +
      `  Any key works; a missing Authorization header gets 401, an invalid request 422.\n` +
      `  Choose an answer with the Prefer header, e.g. "Prefer: code=404" or "Prefer: example=ListNotificationsEmpty".\n\n`,
  );
} else {
  fail(`Unknown command "${positionals[0]}".`);
}
prism.child.stdout?.pipe(process.stdout);
prism.child.stderr?.pipe(process.stderr);
prism.child.once("exit", (code) => process.exit(code ?? 1));
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void prism.stop().then(() => process.exit(0)));
