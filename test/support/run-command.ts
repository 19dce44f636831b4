/** Runs a command and resolves with its exit code and all it printed (asynchronous: the commands take a while). */
import { spawn } from "node:child_process";

export function runCommand(
  cwd: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += String(chunk);
    });
    child.on("close", (status) => resolve({ status, output }));
  });
}
