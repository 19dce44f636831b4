/** Child processes the benchmark talks to over HTTP: started, waited for until they print their URL, stopped. */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

export interface Target {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Runs `tsx <script> ...args` and resolves with the first URL it prints after `prefix`. */
export async function startScript(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  prefix: string,
): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: root,
    env: { ...process.env, PORT: "0", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    output += String(chunk);
  });
  const pattern = new RegExp(`${prefix}\\s+(http://\\S+)`);
  const deadline = Date.now() + 120_000;
  while (!pattern.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { name, url: output.match(pattern)?.[1] as string, pid: child.pid as number, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Resident memory of a process, in megabytes. */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}
