import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

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

/** `npm start` as a child process with the given environment; resolves once it has printed its URLs and keys. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: "0", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    log += String(chunk);
  });
  const deadline = Date.now() + 90_000;
  while (!/\n {2}Spec /.test(log) || !/\n\n$/.test(log.slice(log.indexOf("Spec")))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const keys = Object.fromEntries(
    [...log.matchAll(/^ {2}(Production|Development)\s+([0-9a-f]{32})$/gm)].map((m) => [m[1], m[2]]),
  );
  const exited = () =>
    new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));
  return {
    child,
    baseUrl: log.match(/API\s+(http:\/\/\S+)/)?.[1] ?? "",
    keys: keys as Record<string, string>,
    output: () => log,
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
