import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const specFile = fileURLToPath(new URL("../generated/openapi.json", import.meta.url));
const prismBin = fileURLToPath(new URL("../node_modules/.bin/prism", import.meta.url));

export interface PrismProcess {
  child: ChildProcess;
  url: string;
  /** Everything Prism printed, for reports and tests. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts Prism (`mock` or `proxy`) on the bundled spec and resolves once it listens. */
export async function startPrism(args: string[], port: number, host = "127.0.0.1"): Promise<PrismProcess> {
  const child = spawn(prismBin, [...args, "-h", host, "-p", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    log += String(chunk);
  });
  const deadline = Date.now() + 60_000;
  while (!log.includes("Prism is listening")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`Prism did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    url: `http://${host}:${port}`,
    output: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
