import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const binDir = fileURLToPath(new URL("../node_modules/.bin/", import.meta.url));

/** Runs a tool from node_modules/.bin (or at a path, with a slash in it); its chatter is shown only when it fails. */
export function runCli(tool: string, args: string[]): void {
  try {
    execFileSync(tool.includes("/") ? tool : binDir + tool, args, {
      stdio: "pipe",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`${tool} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}
