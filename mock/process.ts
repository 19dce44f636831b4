import { type ChildProcess, spawn } from "node:child_process";

export interface StartedProcess {
  child: ChildProcess;
  /** Everything the process printed, stdout and stderr together. */
  output(): string;
  /** Resolves when the process has exited (at once if it has). */
  exited(): Promise<void>;
}

/**
 * Spawns `command ...args` and resolves once its output satisfies `ready`; kills it and fails if it exits or takes
 * longer than `timeoutMs` first. The one spawn-and-wait of the workspace: the mock's Prism, and the tests' and
 * benchmark's servers, start through it.
 */
export async function spawnUntilReady(
  command: string,
  args: string[],
  options: { cwd?: string | undefined; env?: NodeJS.ProcessEnv | undefined },
  ready: (output: string) => boolean,
  timeoutMs = 90_000,
): Promise<StartedProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    log += String(chunk);
  });
  if (
    !(await outputSatisfies(
      () => log,
      ready,
      timeoutMs,
      () => child.exitCode !== null,
    ))
  ) {
    child.kill("SIGKILL");
    throw new Error(`${command} ${args.join(" ")} did not start:\n${log}`);
  }
  return {
    child,
    output: () => log,
    exited: () =>
      new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve()))),
  };
}

/**
 * Whether a process's `output` came to satisfy `ready` within `timeoutMs` (checked every 50 ms), false at once when
 * `ended` says it can no longer: the workspace's one wait on a process's output, for its start and for a line it
 * logs later (test/support/output.ts).
 */
export async function outputSatisfies(
  output: () => string,
  ready: (output: string) => boolean,
  timeoutMs: number,
  ended: () => boolean = () => false,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!ready(output())) {
    if (ended() || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
