import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConformanceContext } from "../../conformance/context.js";
import { rules } from "../../conformance/rules.js";
import type { PrismProcess } from "../../mock/prism.js";
import { startMock } from "../../scripts/processes.js";
import { drivers } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const shapeRules = rules.filter((rule) => rule.level === "shape");

describe.each(drivers)("conformance of the reference server (%s)", (driver) => {
  let server: TestServer;
  let context: ConformanceContext;
  beforeAll(async () => {
    server = await startTestServer({ driver });
    context = new ConformanceContext({ baseUrl: server.baseUrl, apiKey: server.production.apiKey });
  });
  afterAll(() => server?.close());

  it.each(rules.map((rule) => [rule.id, rule] as const))("%s", async (_id, rule) => {
    await rule.run(context);
  });
});

describe("conformance of the Prism mock (shape rules)", () => {
  let mock: PrismProcess;
  let context: ConformanceContext;
  beforeAll(async () => {
    mock = await startMock();
    context = new ConformanceContext({ baseUrl: mock.url, apiKey: "any-key", subscriberId: "user-8421" });
  });
  afterAll(() => mock?.stop());

  it.each(shapeRules.map((rule) => [rule.id, rule] as const))("%s", async (_id, rule) => {
    await rule.run(context);
  });
});

describe("novu-query-conformance (npm run conformance)", () => {
  let server: TestServer;
  let mock: PrismProcess;
  beforeAll(async () => {
    [server, mock] = await Promise.all([startTestServer({ driver: "pglite" }), startMock()]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), mock?.stop()]);
  });

  // Asynchronous: the server under test answers from this very process.
  const run = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ["--import", "tsx", "conformance/cli.ts", ...args], { cwd: root });
      let stdout = "";
      child.stdout.on("data", (chunk) => {
        stdout += String(chunk);
      });
      child.on("close", (status) => resolve({ status, stdout }));
    });

  it("passes the reference server and prints one line per rule", async () => {
    const result = await run("--base-url", server.baseUrl, "--api-key", server.production.apiKey);
    expect(result.stdout).toContain(`${rules.length} passed, 0 failed`);
    expect(result.stdout).toContain("✓ search.walk.createdAt.ASC");
    expect(result.status).toBe(0);
  });

  it("fails the static mock on behaviour rules, with reasons, and exits non-zero", async () => {
    const result = await run("--base-url", mock.url, "--api-key", "any-key");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/✗ auth\.messages .*\n\s+expected status 401, got 200/);
    expect(result.stdout).toMatch(/\d+ passed, [1-9]\d* failed/);
  });

  it("refuses to run without a base URL and key", async () => {
    expect((await run()).status).toBe(2);
  });
});
