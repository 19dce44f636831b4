import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import type { ListNotificationsResponse } from "../../generated/schema.js";
import { runServerScript, type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { readyLineIn } from "../../server/start/ready.js";
import { outputMatching } from "../support/output.js";
import { json } from "../support/server.js";

describe("npm start", () => {
  let server: ServerProcess;
  let output = "";
  let apiUrl = "";
  let demoKey = "";

  beforeAll(async () => {
    server = await startServerProcess({ DEMO_SUBSCRIBERS: "60", DEMO_NOTIFICATIONS: "120" });
    apiUrl = server.baseUrl;
    demoKey = server.keys.Production ?? "";
    // The banner and the ready line are two writes on two streams: the banner's last line may come after the ready
    // line (CI once read the output between them).
    output = await outputMatching(server, `curl -H "Authorization: ApiKey ${demoKey}"`);
  }, 90_000);

  afterAll(async () => {
    if (server.child.exitCode === null) await server.crash();
  });

  it("prints the API, docs and spec URLs and a demo key per environment", () => {
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`Docs       ${apiUrl}/docs`);
    expect(output).toContain(`Spec       ${apiUrl}/openapi.json`);
    expect(output).toMatch(/Development\s+[0-9a-f]{32}/);
    expect(demoKey).toMatch(/^[0-9a-f]{32}$/);
    expect(output).toContain(`curl -H "Authorization: ApiKey ${demoKey}" "${apiUrl}/v1/notifications?limit=2"`);
  });

  it("writes one JSON ready line with the URLs, the database and the demo keys, for programs to read", () => {
    const lines = output.split("\n").filter((line) => line.includes('"msg":"ready"'));
    expect(lines).toHaveLength(1);
    expect(readyLineIn(output)).toMatchObject({
      msg: "ready",
      api: apiUrl,
      docs: `${apiUrl}/docs`,
      spec: `${apiUrl}/openapi.json`,
      database: expect.stringContaining("PGlite"),
      demoKeys: { Production: demoKey, Development: expect.stringMatching(/^[0-9a-f]{32}$/) },
    });
  });

  it("refuses a port in use in one sentence, with no stack trace", () => {
    const port = new URL(apiUrl).port;
    const second = spawnSync(process.execPath, [runServerScript], {
      env: { ...process.env, PORT: port, DEMO_SUBSCRIBERS: "60", DEMO_NOTIFICATIONS: "120" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(second.status).toBe(1);
    expect(second.stderr.trim()).toBe(
      `Port ${port} on 127.0.0.1 is in use by another program: stop it, or set PORT to another port.`,
    );
  }, 60_000);

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
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    expect((await inFlight).status).toBe(200);
    expect(await exited).toBe(0);
    await expect(fetch(`${apiUrl}/healthz`)).rejects.toThrow();
  });
});

describe("npm run mock:stateful", () => {
  it("logs no line per request unless LOG_LEVEL asks for them", async () => {
    const quiet = await startServerProcess({ LOG_LEVEL: "", DEMO_SUBSCRIBERS: "20", DEMO_NOTIFICATIONS: "20" }, [
      "mock",
    ]);
    const chatty = await startServerProcess({ LOG_LEVEL: "info", DEMO_SUBSCRIBERS: "20", DEMO_NOTIFICATIONS: "20" }, [
      "mock",
    ]);
    try {
      for (const mock of [quiet, chatty]) {
        const response = await fetch(`${mock.baseUrl}/v1/notifications?limit=1`, {
          headers: { authorization: `ApiKey ${mock.keys.Production}` },
        });
        expect(response.status).toBe(200);
      }
      // Both lines were written when the answers were sent: once the chatty one's is here, the quiet one's would be.
      await outputMatching(chatty, '"msg":"request completed"');
      expect(quiet.output()).not.toContain('"msg":"request completed"');
    } finally {
      await Promise.all([quiet.stop(), chatty.stop()]);
    }
  }, 120_000);
});
