/**
 * The skeleton inside apps that are not its own, outside this repository: the packed `@novu-query/express` in an app
 * that `novu-query-express init` set up and the backend-app fixture implemented, mounted under `/api` in three
 * hosts (test/packages/host-apps/src/): Express with helmet, its own JSON parser, routes and error handler; NestJS;
 * Fastify through @fastify/express. The conformance command passes against each `/api` with two keys, while the
 * host's own routes and its own error format stay the host's. The same app shows tsc 5.9 and 7 naming the field a
 * handler's answer has and the contract does not.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedProcess, startCommand } from "../../scripts/processes.js";
import { tsc5 } from "../../scripts/typescript.js";
import { packedTarballs } from "../support/tarballs.js";

const implementation = fileURLToPath(new URL("./backend-app/src/", import.meta.url));
const hosts = fileURLToPath(new URL("./host-apps/src/", import.meta.url));

/** What the hosts need besides the packages, at the versions they were tried with. */
const hostPackages = [
  "helmet@8.3.0",
  "@nestjs/core@12.5.1",
  "@nestjs/common@12.5.1",
  "@nestjs/platform-express@12.5.1",
  "reflect-metadata@0.2.2",
  "rxjs@7.8.2",
  "fastify@5.12.8",
  "@fastify/express@4.0.7",
  "typescript@7.0.2",
];

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function mustRun(command: string, args: string[], cwd: string): string {
  const { status, output } = run(command, args, cwd);
  if (status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${status}:\n${output}`);
  return output;
}

const work = mkdtempSync(join(tmpdir(), "novu-query-host-apps-"));
const app = join(work, "app");
const apiKey = "conformance-key";
const otherApiKey = "conformance-other-key";

beforeAll(() => {
  const tarballs = packedTarballs();
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "host", private: true, type: "module" })}\n`);
  const packages = ["@novu-query/contract", "@novu-query/express", "@novu-query/conformance"].map(
    (name) => tarballs[name] as string,
  );
  mustRun("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packages, ...hostPackages], app);
  // An app exists already: `init --router` writes a router module to mount, and no server of its own.
  const initOutput = mustRun(
    process.execPath,
    [join(app, "node_modules", ".bin", "novu-query-express"), "init", "--router"],
    app,
  );
  expect(initOutput).toContain("src/contract-router.ts");
  expect(initOutput).toContain('app.use("/api", contractRouter)');
  expect(existsSync(join(app, "src", "server.ts"))).toBe(false);
  cpSync(implementation, join(app, "src"), { recursive: true });
  cpSync(hosts, join(app, "src"), { recursive: true });
  // NestJS's decorators, in the tsconfig.json that init wrote.
  const tsconfig = JSON.parse(readFileSync(join(app, "tsconfig.json"), "utf8"));
  Object.assign(tsconfig.compilerOptions, { experimentalDecorators: true, emitDecoratorMetadata: true });
  writeFileSync(join(app, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
  mustRun(tsc5, ["-p", app], app);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

async function startHost(entry: string): Promise<{ process: StartedProcess; origin: string }> {
  const started = await startCommand(
    process.execPath,
    [join(app, "dist", entry)],
    { cwd: app, env: { PORT: "0", API_KEYS: `${apiKey}:production,${otherApiKey}:development` } },
    (log) => /listening on http:\/\/\S+:\d+\n/.test(log),
  );
  return { process: started, origin: started.output().match(/on (http:\/\/\S+:\d+)/)?.[1] ?? "" };
}

describe.each([
  ["Express, with helmet, its own express.json() and error handler", "express-host.js", "express"],
  ["NestJS (Express adapter)", "nest-host.js", "nest"],
  ["Fastify, through @fastify/express", "fastify-host.js", "fastify"],
])("the router under /api in %s", (_name, entry, framework) => {
  let host: { process: StartedProcess; origin: string };
  beforeAll(async () => {
    host = await startHost(entry);
  }, 60_000);
  afterAll(async () => {
    host?.process.child.kill("SIGTERM");
    await host?.process.exited();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${host.origin}${path}`, {
      method: path.startsWith("/api/v2/") ? "PATCH" : "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });

  it("passes every rule of the conformance command against /api, with two keys", () => {
    const command = join(app, "node_modules", ".bin", "novu-query-conformance");
    const keys = ["--api-key", apiKey, "--other-api-key", otherApiKey, "--requests-per-second", "0"];
    const { status, output } = run(process.execPath, [command, "--base-url", `${host.origin}/api`, ...keys], app);
    expect(output, output).toMatch(/\n(\d+) passed, 0 failed\n$/);
    expect(output).not.toContain("not run");
    expect(status).toBe(0);
  }, 120_000);

  it("leaves the host's routes to the host, the one beside a contract pattern included", async () => {
    expect(await (await fetch(`${host.origin}/api/health`)).json()).toEqual({ app: framework, ok: true });
    const stats = await fetch(`${host.origin}/api/v1/notifications/stats`, {
      headers: { authorization: `ApiKey ${apiKey}` },
    });
    expect(await stats.json()).toEqual({ app: framework, stats: true });
    expect(await (await post("/api/echo", '{"hello":"world"}')).json()).toEqual({
      app: framework,
      echoed: { hello: "world" },
    });
  });

  it("answers malformed JSON on its routes as the contract does, and on the host's as the host does", async () => {
    const contract = await post("/api/v2/subscribers/sub-1", "{", { authorization: `ApiKey ${apiKey}` });
    expect(contract.status).toBe(400);
    expect(await contract.json()).toMatchObject({
      statusCode: 400,
      message: "Malformed JSON in request body",
      path: "/api/v2/subscribers/sub-1",
    });
    const own = await post("/api/echo", "{");
    expect(own.status).toBe(400);
    const body = (await own.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty("timestamp");
    expect(body).not.toHaveProperty("path");
    if (framework === "express") expect(body).toMatchObject({ app: "express" });
    if (framework === "fastify") expect(body).toMatchObject({ code: "FST_ERR_CTP_INVALID_JSON_BODY" });
  });
});

describe("a handler whose answer has a field the contract lacks", () => {
  it("fails tsc 5.9 and tsc 7 with the field's name in the output", () => {
    const file = join(app, "src", "secret-field.ts");
    writeFileSync(
      file,
      `import { handler, type Subscriber } from "@novu-query/express";
declare const row: Subscriber;
export const leaky = handler("patchSubscriber", async () => ({ status: 200, body: { ...row, secret: "s3cr3t" } }));
`,
    );
    try {
      for (const compiler of [tsc5, join(app, "node_modules", ".bin", "tsc")]) {
        const { status, output } = run(compiler, ["-p", app, "--noEmit"], app);
        expect(status).not.toBe(0);
        expect(output).toContain("src/secret-field.ts(3,");
        expect(output).toContain('"not in the contract: body.secret"');
      }
      expect(run(join(app, "node_modules", ".bin", "tsc"), ["--version"], app).output).toMatch(/^Version 7\./);
    } finally {
      rmSync(file);
    }
  }, 120_000);
});
