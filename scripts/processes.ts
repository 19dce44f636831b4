/**
 * The repository's commands as child processes, for the tests and the benchmark: the reference server as `npm start`
 * runs it (known by its JSON ready line), a script of the benchmark's (the same ready line), and the static Prism mock,
 * each on a free port. All start through the workspace's one spawn-and-wait, the mock package's `spawnUntilReady`.
 */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { type PrismProcess, startMock as startPrismMock } from "../mock/prism.js";
import { type StartedProcess, spawnUntilReady } from "../mock/process.js";
import { type ReadyLine, readyLineIn } from "../server/start/ready.js";

export type { StartedProcess };

const root = fileURLToPath(new URL("../", import.meta.url));
/** What `npm start` and `npm run mock:stateful` run. */
export const runServerScript = fileURLToPath(new URL("./run-server.mjs", import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Demo key per environment name, from the ready line. */
  keys: Record<string, string>;
  output(): string;
  /** SIGKILL: no shutdown, no flush, as in a crash. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** `spawnUntilReady` from the project root, with PORT=0 and LOG_LEVEL=warn unless `env` says otherwise. */
export function startCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> },
  ready: (output: string) => boolean,
  timeoutMs = 90_000,
): Promise<StartedProcess> {
  const env = { ...process.env, PORT: "0", LOG_LEVEL: "warn", ...options.env };
  return spawnUntilReady(command, args, { cwd: options.cwd ?? root, env }, ready, timeoutMs);
}

/** True once a process has written its ready line (server/start/ready.ts). */
export const printedReadyLine = (output: string): boolean => readyLineIn(output) !== undefined;

/** The server behind a process that has written its ready line: its API URL and demo keys. */
export function serverFromReadyLine({ child, output, exited }: StartedProcess): ServerProcess {
  const ready = readyLineIn(output()) as ReadyLine;
  return {
    child,
    baseUrl: ready.api,
    keys: ready.demoKeys,
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
 * resolves once it has written its ready line. `node`: another Node binary to run it with (the benchmark's Node 24);
 * `nodeArgs`: flags for Node itself (the benchmark's `--cpu-prof`, which NODE_OPTIONS does not take).
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = [],
  node = process.execPath,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const command = [...nodeArgs, runServerScript, ...args];
  return serverFromReadyLine(await startCommand(node, command, { env }, printedReadyLine));
}

/** A process the benchmark talks to over HTTP. */
export interface Target {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * `tsx <script> ...args` (under `node`) from the project root, resolved once it writes a ready line (`api` is its URL):
 * the benchmark's minimal Express app, its raw server, the server without validation.
 */
export async function startTsxScript(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  node = process.execPath,
): Promise<Target> {
  const command = ["--import", "tsx", script, ...args];
  const started = await startCommand(node, command, { env }, printedReadyLine, 120_000);
  const { child } = started;
  return {
    name,
    url: (readyLineIn(started.output()) as ReadyLine).api,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode !== null) return;
      // SIGTERM first; a process that does not exit within 5 s is killed.
      const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
      child.kill("SIGTERM");
      await started.exited();
      clearTimeout(kill);
    },
  };
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
