import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import type { ListNotificationsResponse } from "../../generated/schema.js";
import { runServerScript } from "../../scripts/processes.js";
import { json } from "../support/server.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("npm start", () => {
  let child: ChildProcess;
  let output = "";
  let apiUrl = "";
  let demoKey = "";

  beforeAll(async () => {
    child = spawn(process.execPath, [runServerScript], {
      cwd: root,
      env: { ...process.env, PORT: "0", DEMO_SUBSCRIBERS: "60", DEMO_NOTIFICATIONS: "120", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk) => {
      output += String(chunk);
    });
    child.stderr?.on("data", (chunk) => {
      output += String(chunk);
    });
    const deadline = Date.now() + 60_000;
    while (!/Try:/.test(output)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    apiUrl = output.match(/API\s+(http:\/\/\S+)/)?.[1] ?? "";
    demoKey = output.match(/Production\s+([0-9a-f]{32})/)?.[1] ?? "";
  }, 90_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("prints the API, docs and spec URLs and a demo key per environment", () => {
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`Docs       ${apiUrl}/docs`);
    expect(output).toContain(`Spec       ${apiUrl}/openapi.json`);
    expect(output).toMatch(/Development\s+[0-9a-f]{32}/);
    expect(demoKey).toMatch(/^[0-9a-f]{32}$/);
  });

  it("serves a spec-valid page for the README's curl request", async () => {
    const response = await fetch(`${apiUrl}/v1/notifications?channels=email&limit=2`, {
      headers: { authorization: `ApiKey ${demoKey}` },
    });
    expect(response.status).toBe(200);
    const body = await json<ListNotificationsResponse>(response);
    expect(body.data).toHaveLength(2);
    const validate = validatorAt(createSpecAjv(), "/components/schemas/ListNotificationsResponse");
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect((await fetch(`${apiUrl}/docs`)).status).toBe(200);
  });

  it("finishes the request in flight and exits cleanly on SIGTERM", async () => {
    const inFlight = fetch(`${apiUrl}/v1/notifications?limit=50`, { headers: { authorization: `ApiKey ${demoKey}` } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill("SIGTERM");
    expect((await inFlight).status).toBe(200);
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    await expect(fetch(`${apiUrl}/healthz`)).rejects.toThrow();
  });
});
