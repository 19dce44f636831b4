/** Child processes the benchmark talks to over HTTP: started, waited for until they print their URL, stopped. */
import { readFileSync } from "node:fs";
import { startTsxProcess } from "../scripts/processes.js";

export interface Target {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Runs `tsx <script> ...args` (under `node`) and resolves with the first URL it prints after `prefix`. */
export async function startScript(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  prefix: string,
  node = process.execPath,
): Promise<Target> {
  const pattern = new RegExp(`${prefix}\\s+(http://\\S+)`);
  const started = await startTsxProcess(script, args, env, (output) => pattern.test(output), 120_000, node);
  const { child } = started;
  return {
    name,
    url: started.output().match(pattern)?.[1] as string,
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

/** Resident memory of a process, in megabytes. */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}
