/**
 * Waiting for a child process's output. A process's log arrives through a pipe and its answers through a socket, so
 * a test that has an answer in hand may not have the line logged before it yet: it waits for the line (a fixed sleep
 * is too short on a busy machine, and slower than needed on an idle one).
 */
export async function outputMatching(
  process: { output(): string },
  pattern: RegExp | string,
  timeoutMs = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const matches = () =>
    typeof pattern === "string" ? process.output().includes(pattern) : pattern.test(process.output());
  while (!matches()) {
    if (Date.now() > deadline)
      throw new Error(
        `no output matching ${String(pattern)} within ${timeoutMs} ms; its last lines:\n${process.output().slice(-2000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.output();
}
