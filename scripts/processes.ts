/**
 * The repository's commands as child processes, for the tests and the benchmark: the server as `npm start` runs it,
 * the static Prism mock on a free port, and the spawn-and-wait they share (mock/process.ts).
 */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { type PrismProcess, startMock as startPrismMock } from "../mock/prism.js";
import { type StartedProcess, startProcess as spawnAndWait } from "../mock/process.js";

export type { StartedProcess };

const root = fileURLToPath(new URL("../", import.meta.url));
/** What `npm start` and `npm run mock:stateful` run. */
export const runServerScript = fileURLToPath(new URL("./run-server.mjs", import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Demo key per environment name, as printed at start. */
  keys: Record<string, string>;
  output(): string;
  /** SIGKILL: no shutdown, no flush, as in a crash. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** `startProcess` from the project root, with PORT=0 and LOG_LEVEL=warn unless `env` says otherwise. */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> },
  ready: (output: string) => boolean,
  timeoutMs = 90_000,
): Promise<StartedProcess> {
  const env = { ...process.env, PORT: "0", LOG_LEVEL: "warn", ...options.env };
  return spawnAndWait(command, args, { cwd: options.cwd ?? root, env }, ready, timeoutMs);
}

/** `tsx <script> ...args` from the project root, as `startProcess` starts a command; `node`: another Node binary. */
export function startTsxProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: (output: string) => boolean,
  timeoutMs = 90_000,
  node = process.execPath,
): Promise<StartedProcess> {
  return startProcess(node, ["--import", "tsx", script, ...args], { env }, ready, timeoutMs);
}

/** True once the server's start-up banner (URLs, then the demo keys if any) has been printed whole. */
export function printedServerBanner(log: string): boolean {
  return /\n {2}Spec /.test(log) && /\n\n$/.test(log.slice(log.indexOf("Spec")));
}

/** The server process behind a printed banner: its API URL and demo keys. */
export function serverFromBanner({ child, output, exited }: StartedProcess): ServerProcess {
  const log = output();
  const keys = Object.fromEntries(
    [...log.matchAll(/^ {2}(Production|Development)\s+([0-9a-f]{32})$/gm)].map((m) => [m[1], m[2]]),
  );
  return {
    child,
    baseUrl: log.match(/API\s+(http:\/\/\S+)/)?.[1] ?? "",
    keys: keys as Record<string, string>,
    output,
    async crash() {
      child.kill("SIGKILL");
      await exited();
    },
    async stop() {
      child.kill("SIGTERM");
      await exited();
    },
  };
}

/**
 * `npm start` (`node scripts/run-server.mjs`, which runs server/cli.ts) as a child process with the given environment;
 * resolves once it has printed its URLs and keys. `node`: another Node binary to run it with (the benchmark's Node 24);
 * `nodeArgs`: flags for Node itself (the benchmark's `--cpu-prof`, which NODE_OPTIONS does not take).
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = [],
  node = process.execPath,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const command = [...nodeArgs, runServerScript, ...args];
  return serverFromBanner(await startProcess(node, command, { env }, printedServerBanner));
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The static Prism mock (`npm run mock`) on a free port. */
export async function startMock(node?: string): Promise<PrismProcess> {
  return startPrismMock({ port: await freePort(), ...(node ? { node } : {}) });
}
