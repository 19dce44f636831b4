/**
 * The skeleton as a backend team meets it, outside this repository: the packed `@novu-query/express` installed into
 * an empty app, `novu-query-express init`, the app started on the stubs and the conformance command run against it
 * (the first report), then the stubs replaced with an in-memory implementation of the four operations
 * (test/packages/backend-app/), compiled, and the conformance command passing every rule against it under Node 20 and
 * Node 24. The same app proves what does not compile in a handler, and holds no database package.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIds } from "../../generated/operations.js";
import { type StartedProcess, startCommand } from "../../scripts/processes.js";
import { nodeRuntimes } from "../support/node-runtimes.js";
import { packedTarballs } from "../support/tarballs.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./backend-app/src/", import.meta.url));
const tsc = join(root, "node_modules", ".bin", "tsc");

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function mustRun(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const { status, output } = run(command, args, cwd, env);
  if (status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${status}:\n${output}`);
  return output;
}

const work = mkdtempSync(join(tmpdir(), "novu-query-backend-team-"));
const app = join(work, "notifications-api");
/** Where the conformance command is installed: what `npx @novu-query/conformance` puts in npx's cache. */
const tools = join(work, "tools");
const apiKey = "conformance-key";
/** A key of the app's second environment: the isolation rules read and patch across the two. */
const otherApiKey = "conformance-other-key";
const timings: Record<string, number> = {};

/** The app's server under a Node, on a free port, with the test's API key; resolves once it listens. */
async function startApp(node: string): Promise<{ process: StartedProcess; baseUrl: string }> {
  const started = await startCommand(
    node,
    [join(app, "dist", "server.js")],
    { cwd: app, env: { PORT: "0", API_KEYS: `${apiKey}:production,${otherApiKey}:development` } },
    (log) => /on http:\/\/\S+:\d+\n/.test(log),
  );
  return { process: started, baseUrl: started.output().match(/on (http:\/\/\S+:\d+)/)?.[1] ?? "" };
}

function conformance(node: string, baseUrl: string, ...options: string[]) {
  const command = join(tools, "node_modules", ".bin", "novu-query-conformance");
  const keys = ["--api-key", apiKey, "--other-api-key", otherApiKey];
  return run(node, [command, "--base-url", baseUrl, ...keys, ...options], tools);
}

/** The packages npm placed in an app, as its lock file lists them. */
function installedPackages(dir: string): string[] {
  const lock = JSON.parse(readFileSync(join(dir, "node_modules", ".package-lock.json"), "utf8"));
  return Object.keys(lock.packages)
    .filter((path) => path.startsWith("node_modules/"))
    .map((path) => path.replace(/^.*node_modules\//, ""));
}

let initOutput = "";
let firstReport: { status: number | null; output: string };

beforeAll(async () => {
  const tarballs = packedTarballs();
  const install = (dir: string, names: string[]) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`);
    mustRun(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", ...names.map((n) => tarballs[n] as string)],
      dir,
    );
  };
  install(app, ["@novu-query/contract", "@novu-query/express"]);
  install(tools, ["@novu-query/contract", "@novu-query/conformance"]);

  // From here on, what the README's "For backend teams" says, timed to the first conformance report.
  const began = performance.now();
  initOutput = mustRun(process.execPath, [join(app, "node_modules", ".bin", "novu-query-express"), "init"], app);
  mustRun(tsc, ["-p", app], app);
  const stubs = await startApp(process.execPath);
  try {
    firstReport = conformance(process.execPath, stubs.baseUrl);
  } finally {
    stubs.process.child.kill("SIGTERM");
    await stubs.process.exited();
  }
  timings.initToFirstReport = performance.now() - began;

  cpSync(fixture, join(app, "src"), { recursive: true });
  mustRun(tsc, ["-p", app], app);
}, 600_000);

afterAll(() => {
  const seconds = ((timings.initToFirstReport ?? 0) / 1000).toFixed(1);
  process.stdout.write(`\nBackend team: init to the first conformance report (compile, start, run) in ${seconds} s\n`);
  rmSync(work, { recursive: true, force: true });
});

describe("novu-query-express init, in an empty app outside the repository", () => {
  it("writes the app entry, the key hook, tsconfig.json and one handler stub per operation", () => {
    const written = [...initOutput.matchAll(/^ {2}(\S+)$/gm)].map((match) => match[1]);
    expect(written.sort()).toEqual(
      ["src/server.ts", "src/auth.ts", "tsconfig.json", "src/handlers/index.ts"]
        .concat(operationIds.map((id) => `src/handlers/${id}.ts`))
        .sort(),
    );
  });

  it("gives a first conformance report on the stubs: authentication and validation pass, every operation 501", () => {
    expect(firstReport.status).toBe(1);
    expect(firstReport.output).toMatch(/✓ auth\.messages/);
    expect(firstReport.output).toMatch(/✓ search\.invalid-limit/);
    expect(firstReport.output).toMatch(/✓ get\.malformed-id/);
    expect(firstReport.output).toMatch(/✗ search\.shape\s[^\n]*\n\s+GET \/v2\/subscribers\? answered 501/);
  });

  it("writes nothing over a file that exists when run again, and a stub for an operation that has none", () => {
    const handlers = join(app, "src", "handlers");
    const written = readFileSync(join(handlers, "getNotification.ts"), "utf8");
    // An operation the app has no handler for (as after a contract upgrade that adds one).
    const index = readFileSync(join(handlers, "index.ts"), "utf8");
    writeFileSync(
      join(handlers, "index.ts"),
      index.replace(/^import \{ getNotification \}.*\n/m, "").replace("  getNotification,\n", ""),
    );
    rmSync(join(handlers, "getNotification.ts"));
    const again = mustRun(process.execPath, [join(app, "node_modules", ".bin", "novu-query-express"), "init"], app);
    expect(again).toContain("src/handlers/getNotification.ts");
    expect(again).not.toMatch(/^ {2}src\/server\.ts$/m);
    // Says what this run did, not what the first did.
    expect(again).toContain("getNotification has a stub that answers 501 until written");
    expect(again).not.toContain("every operation answers 501");
    const rewritten = readFileSync(join(handlers, "index.ts"), "utf8");
    expect(rewritten.split("\n").sort()).toEqual(index.split("\n").sort());
    expect(readFileSync(join(handlers, "getNotification.ts"), "utf8")).not.toBe(written);
    // The stub came back: put the implementation back over it, as a team would keep its own file.
    writeFileSync(join(handlers, "getNotification.ts"), written);
    const third = mustRun(process.execPath, [join(app, "node_modules", ".bin", "novu-query-express"), "init"], app);
    expect(third).toContain("Nothing to write");
  });

  it("prints its usage for --help, and refuses what it does not know", () => {
    const command = join(app, "node_modules", ".bin", "novu-query-express");
    expect(mustRun(process.execPath, [command, "--help"], app)).toContain("novu-query-express init [dir]");
    const unknown = run(process.execPath, [command, "deploy"], app);
    expect(unknown.status).toBe(2);
    expect(unknown.output).toContain('Unknown command "deploy"');
  });
});

describe("a team's app on the skeleton", () => {
  it("refuses, at compile time, an unknown body field, an undeclared status and a missing required field", () => {
    const checks = readFileSync(join(app, "src", "contract-checks.ts"), "utf8");
    expect(checks.match(/\/\/ @ts-expect-error/g)).toHaveLength(3);
    // Without the directives, each of those lines is an error of its own.
    writeFileSync(join(app, "src", "contract-checks.ts"), checks.replaceAll("// @ts-expect-error", "//"));
    try {
      const { status, output } = run(tsc, ["-p", app, "--noEmit"], app);
      expect(status).not.toBe(0);
      expect(output.match(/src\/contract-checks\.ts\(\d+,\d+\): error/g)).toHaveLength(3);
    } finally {
      writeFileSync(join(app, "src", "contract-checks.ts"), checks);
    }
    expect(run(tsc, ["-p", app, "--noEmit"], app)).toEqual({ status: 0, output: "" });
  });

  it("holds no database package, logger or mock in node_modules", () => {
    const installed = installedPackages(app);
    expect(installed).toContain("@novu-query/express");
    expect(
      installed.filter((name) =>
        /^(pg|pg-.*|@electric-sql\/.*|kysely|pino|mysql2?|mongodb|sqlite3?|@stoplight\/.*)$/.test(name),
      ),
    ).toEqual([]);
  });
});

describe.each(nodeRuntimes)("the in-memory implementation under %s", (runtime, findNode) => {
  let node: string;
  let server: { process: StartedProcess; baseUrl: string };
  beforeAll(async () => {
    node = findNode();
    server = await startApp(node);
  }, 120_000);
  afterAll(async () => {
    server?.process.child.kill("SIGTERM");
    await server?.process.exited();
  });

  it("runs on the Node it was asked to", () => {
    expect(mustRun(node, ["--version"], work)).toMatch(runtime === "Node 24" ? /^v24\./ : /^v20\./);
  });

  it("passes every rule of the conformance command at behaviour level", () => {
    const { status, output } = conformance(node, server.baseUrl, "--requests-per-second", "0");
    expect(output).toContain("all rules");
    expect(output, output).toMatch(/\n(\d+) passed, 0 failed\n$/);
    expect(status).toBe(0);
  }, 120_000);
});
