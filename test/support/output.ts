/**
 * Waiting for a child process's output. A process's log arrives through a pipe and its answers through a socket, so
 * a test that has an answer in hand may not have the line logged before it yet: it waits for the line (a fixed sleep
 * is too short on a busy machine, and slower than needed on an idle one), through the wait processes start with.
 */
import { outputSatisfies } from "../../mock/process.js";

export async function outputMatching(
  process: { output(): string },
  pattern: RegExp | string,
  timeoutMs = 10_000,
): Promise<string> {
  const matches = (output: string) => (typeof pattern === "string" ? output.includes(pattern) : pattern.test(output));
  if (!(await outputSatisfies(() => process.output(), matches, timeoutMs)))
    throw new Error(
      `no output matching ${String(pattern)} within ${timeoutMs} ms; its last lines:\n${process.output().slice(-2000)}`,
    );
  return process.output();
}
