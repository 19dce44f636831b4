import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnUntilReady } from "./process.js";

/** The bundled spec that Prism serves (in the package: the copy its build places beside the code). */
export const specFile = fileURLToPath(new URL("../generated/openapi.json", import.meta.url));

/** Prism's command-line entry, run with `node` (the mock's own Node) rather than through its bin script. */
export function prismEntry(): string {
  const manifest = createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json");
  return join(dirname(manifest), "dist", "index.js");
}

export interface PrismProcess {
  child: ChildProcess;
  url: string;
  /** Everything Prism printed, for reports and tests. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts Prism (`mock` or `proxy`) on the bundled spec, under the Node that runs this code (or `node`), and resolves
 * once it listens.
 */
export async function startPrism(
  args: string[],
  port: number,
  host = "127.0.0.1",
  node = process.execPath,
): Promise<PrismProcess> {
  const { child, output, exited } = await spawnUntilReady(
    node,
    [prismEntry(), ...args, "-h", host, "-p", String(port)],
    {},
    (log) => log.includes("Prism is listening"),
    60_000,
  );
  return {
    child,
    url: `http://${host}:${port}`,
    output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited();
    },
  };
}

/** The static mock (named examples, or `dynamic` data from the schemas) on the given port. */
export function startMock(options: {
  port: number;
  host?: string;
  dynamic?: boolean;
  /** Another Node binary to run Prism with (the benchmark's Node 24). */
  node?: string;
}): Promise<PrismProcess> {
  return startPrism(
    ["mock", specFile, ...(options.dynamic ? ["--dynamic"] : [])],
    options.port,
    options.host,
    options.node,
  );
}

/** A validating proxy in front of `upstream`; `errors` turns contract violations into error answers. */
export function startProxy(options: {
  upstream: string;
  port: number;
  host?: string;
  errors?: boolean;
}): Promise<PrismProcess> {
  return startPrism(
    ["proxy", specFile, options.upstream, ...(options.errors ? ["--errors"] : [])],
    options.port,
    options.host,
  );
}
