/**
 * The packages as another team meets them: built, packed with `npm pack`, installed from the tarballs into apps in a
 * temporary folder outside this repository (so nothing resolves from our node_modules), and used there through their
 * commands and exports, under Node 20 and under Node 24 (the current LTS, installed from npm with `npx node@24`).
 * Needs the npm registry (or a warm npm cache) for the packages' own dependencies and for Node 24.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIds } from "../../generated/operations.js";
import { workspacePackages } from "../../scripts/packages.js";
import {
  freePort,
  printedReadyLine,
  type ServerProcess,
  type StartedProcess,
  serverFromReadyLine,
  startCommand,
} from "../../scripts/processes.js";
import { tsc5 } from "../../scripts/typescript.js";
import { createPostgresDatabase, onCitus } from "../support/databases.js";
import { nodeRuntimes } from "../support/node-runtimes.js";
import { packedTarballs } from "../support/tarballs.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = (tool: string) => join(root, "node_modules", ".bin", tool);
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * The budgets of the packaging issue: what installing the contract may cost a frontend app. 0.3.0 raised the install
 * budget from 1 MB for its four optional entries (stateful MSW, factories, TanStack Query, zod: about 360 kB, schema
 * declarations most of it), the model (`/model`, ES modules only, about 40 kB), and then from 1.3 MB for the typed
 * errors (ESM and CommonJS), the static handlers' fitting of examples to requests and `/json-pointer` (about 70 kB with
 * their declarations and source maps; the bundled spec ships unindented, 122 kB less), and then from 1.4 MB for the
 * inputs' declarations in `/model` (each input's meaning, refusals, cost and samples: about 60 kB with their
 * declarations and source maps) and the vocabulary the factories share with the demo data (ESM and CommonJS); what
 * reaches an app's bundle is only what it imports, which the bundle budget holds. The tarball, 208 kB at 1.4 MB, is
 * 242 kB with them, and 255 kB with the rules of round four in `/model` (the subscriber cursor, the idempotency key,
 * the content type) and `/validate-answers`: the tarball budget went from 250 to 265 kB, the install's from 1.5 to
 * 1.6 MB (1.55 MB); and with every zod check worded as the server words it (an enum's message lists its values),
 * 266 kB: the budget is 275 kB. The TanStack Query options for every framework (`/query`, `/vue-query`,
 * `/svelte-query`: about 55 kB installed with their declarations and source maps, the entries' page types named so
 * that their declarations do not spell them out) took it to 274.5 kB and 1.62 MB: the budgets were 285 kB and 1.65 MB.
 * The model's `listedNotifications` (D79: every row a list query selects, which the conformance rules count) took the
 * install to 1,651.7 kB, the tarball 280.3 kB: the install's budget is 1.7 MB.
 */
const budget = { contractTarball: 285_000, contractInstall: 1_700_000, clientBundle: 10_000 };
/** The skeleton's budget (issue 26): Express, express-openapi-validator and the contract are 108 packages, 16 MB. */
const skeletonBudget = { packages: 115, bytes: 20_000_000 };

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  }
  return result.stdout;
}

function folderBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

/** The packages npm placed in an app, as its lock file lists them. */
function installedPackages(app: string): string[] {
  const lock = JSON.parse(readFileSync(join(app, "node_modules", ".package-lock.json"), "utf8"));
  return Object.keys(lock.packages)
    .filter((path) => path.startsWith("node_modules/"))
    .map((path) => path.replace(/^.*node_modules\//, ""))
    .sort();
}

const work = mkdtempSync(join(tmpdir(), "novu-query-packages-"));
let tarballs: Record<string, string> = {};
const apps: Record<"contract" | "msw" | "express" | "mock" | "conformance" | "server", string> = {
  contract: join(work, "frontend-app"),
  msw: join(work, "msw-app"),
  express: join(work, "express-app"),
  mock: join(work, "mock-app"),
  conformance: join(work, "conformance-app"),
  server: join(work, "server-app"),
};
const report: string[][] = [];

/** The package and the workspace packages it depends on, which are not on the registry at this version yet. */
function withSiblings(name: string): string[] {
  const pkg = workspacePackages.find((candidate) => candidate.name === name);
  if (!pkg) throw new Error(`${name} is not a package of this workspace`);
  const manifest = JSON.parse(readFileSync(join(root, pkg.dir, "package.json"), "utf8"));
  const siblings = Object.keys(manifest.dependencies ?? {}).filter((dependency) =>
    workspacePackages.some((candidate) => candidate.name === dependency),
  );
  return [...new Set([...siblings.flatMap(withSiblings), name])];
}

/** An app folder with a package.json and a package installed from its tarball (and its siblings'), as `npm install <tarball>` does. */
function installApp(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`);
  const files = withSiblings(name).map((sibling) => tarballs[sibling] as string);
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...files], dir);
}

/** The app each package is measured in. */
const appOf = (pkg: (typeof workspacePackages)[number]) =>
  apps[pkg.dir === "client" ? "contract" : (pkg.dir as Exclude<keyof typeof apps, "msw" | "contract">)];

beforeAll(() => {
  tarballs = packedTarballs();
  installApp(apps.contract, "@novu-query/contract");
  // The MSW handlers' optional peers, at the versions this repository tests with.
  installApp(apps.msw, "@novu-query/contract");
  const peers = ["msw", "ajv", "ajv-formats"].map(
    (name) => `${name}@${JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version}`,
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...peers], apps.msw);
  for (const pkg of workspacePackages.filter((candidate) => candidate.dir !== "client")) {
    installApp(appOf(pkg), pkg.name);
  }
  for (const pkg of workspacePackages) {
    const app = appOf(pkg);
    const packed = statSync(tarballs[pkg.name] as string).size;
    report.push([
      pkg.name,
      kB(packed),
      String(installedPackages(app).length),
      kB(folderBytes(join(app, "node_modules"))),
    ]);
  }
}, 600_000);

afterAll(() => {
  process.stdout.write(
    `\nPackages as installed from their tarballs (an app with only that package and the workspace packages it needs):\n${[
      ["package", "tarball", "installed packages", "installed size"],
      ...report,
    ]
      .map((row) => `  ${row.map((cell, i) => cell.padEnd(i === 0 ? 34 : 20)).join("")}`)
      .join("\n")}\n`,
  );
  rmSync(work, { recursive: true, force: true });
});

// With CITUS=on only the commands run again (the server on the cluster): the checks without a database ran in `npm test`.
describe.skipIf(onCitus)("package checks", () => {
  it.each(workspacePackages.map((pkg) => [pkg.name, pkg.dir]))("publint finds nothing in %s", (_name, dir) => {
    expect(run(bin("publint"), ["--strict", dir], root)).toContain("All good!");
  });

  it.each(workspacePackages.map((pkg) => [pkg.name]))("are-the-types-wrong finds nothing in %s", (name) => {
    // attw exits non-zero on any problem it does not ignore. The contract is dual (ESM and CommonJS) and resolves
    // under node10 too, so it gets every check (openapi.yaml is data, not a module); the packages of the commands are
    // ESM-only (documented), which attw's esm-only profile accepts: it ignores node10 and require() resolution. So
    // are the contract's ./msw, ./query, ./react-query, ./vue-query, ./svelte-query and ./zod entries (their users are ES module apps), checked on their
    // own with that profile, and so is ./model.
    const contract = name === "@novu-query/contract";
    const attw = (args: string[]) =>
      JSON.parse(run(bin("attw"), [tarballs[name] as string, ...args, "--format", "json"], root)).analysis;
    const esmOnly = (problems: { resolutionKind: string }[]) =>
      problems.filter((problem) => !["node10", "node16-cjs"].includes(problem.resolutionKind));
    const esmEntries = [
      "./msw",
      "./model",
      "./query",
      "./react-query",
      "./vue-query",
      "./svelte-query",
      "./zod",
      "./validate-answers",
      "./json-pointer",
    ];
    const analysis = attw(
      contract ? ["--exclude-entrypoints", "./openapi.yaml", ...esmEntries] : ["--profile", "esm-only"],
    );
    if (contract) expect(analysis.problems).toEqual([]);
    else expect(esmOnly(analysis.problems)).toEqual([]);
    for (const resolutionKind of ["node16-esm", "bundler"]) {
      expect(analysis.entrypoints["."].resolutions[resolutionKind].resolution.fileName).toMatch(/\.d\.ts$/);
    }
    if (contract) {
      const esm = attw(["--profile", "esm-only", "--entrypoints", ...esmEntries]);
      expect(esmOnly(esm.problems)).toEqual([]);
      for (const entry of esmEntries) {
        expect(esm.entrypoints[entry].resolutions.bundler.resolution.fileName).toMatch(/\.d\.ts$/);
      }
    }
  });

  it("installing the contract adds only openapi-fetch and its one dependency, within the size budgets", () => {
    expect(installedPackages(apps.contract)).toEqual([
      "@novu-query/contract",
      "openapi-fetch",
      "openapi-typescript-helpers",
    ]);
    expect(folderBytes(join(apps.contract, "node_modules"))).toBeLessThanOrEqual(budget.contractInstall);
    expect(statSync(tarballs["@novu-query/contract"] as string).size).toBeLessThanOrEqual(budget.contractTarball);
  });

  it("installing the skeleton brings no database, logger or mock, within its budget", () => {
    const installed = installedPackages(apps.express);
    expect(installed).toEqual(expect.arrayContaining(["@novu-query/express", "@novu-query/contract", "express"]));
    expect(installed.filter((name) => /pg|pglite|kysely|pino|faker|prism|postgres/.test(name))).toEqual([]);
    expect(installed.length).toBeLessThanOrEqual(skeletonBudget.packages);
    expect(folderBytes(join(apps.express, "node_modules"))).toBeLessThanOrEqual(skeletonBudget.bytes);
  });

  it("ships in each tarball only its own package's code: another package's modules come by its name", () => {
    const others = (dir: string) => workspacePackages.map((pkg) => pkg.dir).filter((other) => other !== dir);
    const borrowed = workspacePackages.flatMap((pkg) => {
      const listing = spawnSync("tar", ["-tzf", tarballs[pkg.name] as string], { encoding: "utf8" }).stdout;
      const files = listing.split("\n").filter((file) => file.startsWith("package/dist/"));
      expect(files.length, pkg.name).toBeGreaterThan(0);
      return files.filter((file) => others(pkg.dir).some((other) => file.includes(`/${other}/`)));
    });
    expect(borrowed).toEqual([]);
  });

  it("ships compiled code, declarations and source maps, and no sources, tests or server code in the contract", () => {
    const files = readdirSync(join(apps.contract, "node_modules", "@novu-query", "contract"), { recursive: true })
      .map(String)
      .filter((file) => !statSync(join(apps.contract, "node_modules", "@novu-query", "contract", file)).isDirectory());
    expect(files).toEqual(
      expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/esm/generated/openapi.json"]),
    );
    expect(files).toEqual(expect.arrayContaining(["dist/esm/contract/index.js", "dist/esm/contract/index.d.ts"]));
    expect(files).toEqual(expect.arrayContaining(["dist/cjs/contract/index.js", "dist/esm/contract/index.js.map"]));
    expect(files.filter((file) => /\.ts$/.test(file) && !/\.d\.ts$/.test(file))).toEqual([]);
    expect(files.filter((file) => /server|test|bench|docs/.test(file))).toEqual([]);
  });
});

/** The compiler settings of the apps' type checks: strict, and each module resolution a TypeScript app may use. */
const strict = { strict: true, erasableSyntaxOnly: true, verbatimModuleSyntax: true, noEmit: true };
const settings = {
  bundler: { module: "ESNext", moduleResolution: "bundler", target: "ES2022", lib: ["ES2022", "DOM"] },
  nodenext: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2022", "DOM"] },
  node10: { module: "ESNext", moduleResolution: "node10", target: "ES2022", lib: ["ES2022", "DOM"] },
};

describe.skipIf(onCitus)("the contract package in a TypeScript app", () => {
  const source = `import { allNotifications, createClient, type Notification } from "@novu-query/contract";
import type { paths, Subscriber } from "@novu-query/contract/types";
import { operationTable } from "@novu-query/contract/operations";

const api = createClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "any" });
export async function firstPage(): Promise<Notification[]> {
  const { data, error } = await api.GET("/v1/notifications", { params: { query: { channels: ["email"], limit: 2 } } });
  if (error) throw new Error(error.message);
  return data.data;
}
export async function rename(subscriber: Subscriber): Promise<number | undefined> {
  const path = { subscriberId: subscriber.subscriberId };
  // @ts-expect-error \`nope\` is not a field of the PATCH body
  await api.PATCH("/v2/subscribers/{subscriberId}", { params: { path }, body: { locale: "en", nope: 1 } });
  const { data } = await api.PATCH("/v2/subscribers/{subscriberId}", { params: { path }, body: { locale: "en_US" } });
  return data?.__v;
}
export const every: AsyncGenerator<Notification> = allNotifications(api, { limit: 50 });
export const method: "get" = operationTable.listNotifications.method;
export type Paths = keyof paths;
`;
  it.each(Object.entries(settings))("type-checks under moduleResolution %s with strict settings", (name, options) => {
    const dir = join(apps.contract, `typecheck-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "app.ts"), source);
    const files = ["app.ts"];
    if (name === "nodenext") {
      // A CommonJS module of the same app gets the CommonJS declarations.
      writeFileSync(
        join(dir, "app-commonjs.cts"),
        `import type { ApiClient } from "@novu-query/contract";
declare const require: (id: string) => unknown;
const { createClient } = require("@novu-query/contract") as typeof import("@novu-query/contract");
const api: ApiClient = createClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "k" });
void api.GET("/v2/subscribers", { params: { query: { limit: 2 } } });
`,
      );
      files.push("app-commonjs.cts");
    }
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...strict, ...options }, files }));
    expect(run(tsc5, ["-p", dir], dir)).toBe("");
  });

  it("bundles for the browser with esbuild: no server code, and the client stays small", async () => {
    writeFileSync(
      join(apps.contract, "browser.ts"),
      `import { createClient } from "@novu-query/contract";\nconst api = createClient({ baseUrl: location.origin, apiKey: "k" });\napi.GET("/v1/notifications").then(({ data }) => console.log(data?.data.length));\n`,
    );
    const result = await esbuild({
      absWorkingDir: apps.contract,
      entryPoints: ["browser.ts"],
      bundle: true,
      minify: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => /pg|pglite|express|kysely|pino|faker|node:/.test(input))).toEqual([]);
    expect(inputs.some((input) => input.includes("@novu-query/contract"))).toBe(true);
    const size = result.outputFiles[0]?.contents.byteLength ?? Number.POSITIVE_INFINITY;
    report.push(["client browser bundle (minified)", kB(size), "", ""]);
    expect(size).toBeLessThan(budget.clientBundle);
  });
});

describe.skipIf(onCitus)("the contract's MSW handlers in an app with msw installed", () => {
  it("type-check under bundler and nodenext: statuses, example names and bodies are typed", () => {
    const source = `import { setupServer } from "msw/node";
import { answer, exampleBody, handlers, respond } from "@novu-query/contract/msw";
export const server = setupServer(...handlers, answer("listNotifications", 200, "ListNotificationsEmpty"));
server.use(respond("getNotification", 200, { ...exampleBody("getNotification", 200), transactionId: "t" }));
// @ts-expect-error getNotification declares no 409
answer("getNotification", 409);
// @ts-expect-error no such example
answer("getNotification", 404, "Nope");
`;
    for (const [name, options] of Object.entries(settings).filter(([name]) => name !== "node10")) {
      const dir = join(apps.msw, `typecheck-${name}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "app.ts"), source);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { ...strict, ...options, skipLibCheck: true }, files: ["app.ts"] }),
      );
      expect(run(tsc5, ["-p", dir], dir)).toBe("");
    }
  });
});

describe.each(nodeRuntimes)("the commands and the client under %s", (runtime, findNode) => {
  let node: string;
  let mock: StartedProcess;
  let mockUrl: string;
  let server: ServerProcess;
  /** With CITUS=on, the server command runs on a fresh database of the Citus cluster, which it distributes itself. */
  let citusDatabase: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    node = findNode();
    const port = await freePort();
    citusDatabase = onCitus ? await createPostgresDatabase() : undefined;
    [mock, server] = await Promise.all([
      startCommand(
        node,
        [join(apps.mock, "node_modules", ".bin", "novu-query-mock"), "--port", String(port)],
        { cwd: apps.mock },
        (log) => /Mock \(.*\) on http/.test(log),
      ),
      startCommand(
        node,
        [join(apps.server, "node_modules", ".bin", "novu-query-server")],
        {
          cwd: apps.server,
          env: {
            DEMO_SUBSCRIBERS: "60",
            DEMO_NOTIFICATIONS: "150",
            ...(citusDatabase && { DATABASE_URL: citusDatabase.url, SEED_DEMO_DATA: "true" }),
          },
        },
        printedReadyLine,
      ).then(serverFromReadyLine),
    ]);
    mockUrl = `http://127.0.0.1:${port}`;
  }, 180_000);

  afterAll(async () => {
    mock?.child.kill("SIGTERM");
    await Promise.all([mock?.exited(), server?.stop()]);
    await citusDatabase?.drop();
  });

  it("runs on the Node it was asked to", () => {
    expect(run(node, ["--version"], work)).toMatch(runtime === "Node 24" ? /^v24\./ : /^v20\./);
  });

  it("lists notifications from the mock command with the client, in an ES module app (node app.mjs, no tsx)", () => {
    writeFileSync(
      join(apps.contract, "app.mjs"),
      `import { createClient } from "@novu-query/contract";
const api = createClient({ baseUrl: process.env.BASE_URL, apiKey: "any" });
const { data, error } = await api.GET("/v1/notifications", { params: { query: { limit: 2 } } });
if (error) throw new Error(error.message);
console.log(JSON.stringify({ ids: data.data.map((n) => n._id), hasMore: data.hasMore }));
`,
    );
    const printed = JSON.parse(run(node, ["app.mjs"], apps.contract, { BASE_URL: mockUrl }));
    expect(printed.ids.length).toBeGreaterThan(0);
    for (const id of printed.ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
  });

  it("works from CommonJS too (require)", () => {
    writeFileSync(
      join(apps.contract, "app.cjs"),
      `const { createClient, allNotifications } = require("@novu-query/contract");
const { operationTable } = require("@novu-query/contract/operations");
const spec = require("@novu-query/contract/openapi.json");
(async () => {
  const api = createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
  let count = 0;
  for await (const notification of allNotifications(api, { limit: 50 })) count += notification._id ? 1 : 0;
  console.log(JSON.stringify({ count, method: operationTable.listNotifications.method, title: spec.info.title }));
})().catch((error) => { console.error(error); process.exit(1); });
`,
    );
    const printed = JSON.parse(
      run(node, ["app.cjs"], apps.contract, { BASE_URL: server.baseUrl, API_KEY: server.keys.Production ?? "" }),
    );
    expect(printed.count).toBeGreaterThan(50);
    expect(printed.method).toBe("get");
    expect(printed.title).toBeTruthy();
  });

  it("answers the client from the MSW handlers in Node (setupServer), examples and a chosen error", () => {
    writeFileSync(
      join(apps.msw, "app.mjs"),
      `import { setupServer } from "msw/node";
import { createClient } from "@novu-query/contract";
import { answer, handlers } from "@novu-query/contract/msw";
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: "error" });
const api = createClient({ baseUrl: "https://api.example.com", apiKey: "any" });
const list = await api.GET("/v1/notifications", { params: { query: { limit: 2 } } });
const invalid = await api.GET("/v1/notifications", { params: { query: { limit: 500 } } });
server.use(answer("getNotification", 404));
const missing = await api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId: "66b7e1d0c3a2b1f0e9d8c7b6" } } });
server.close();
console.log(JSON.stringify({ count: list.data.data.length, invalid: Object.keys(invalid.error.errors), missing: missing.error.message }));
`,
    );
    expect(JSON.parse(run(node, ["app.mjs"], apps.msw))).toEqual({
      count: expect.any(Number),
      invalid: ["query.limit"],
      missing: "Notification not found",
    });
  });

  it("the conformance command passes its shape level against the mock command", () => {
    const out = run(
      node,
      [
        join(apps.conformance, "node_modules", ".bin", "novu-query-conformance"),
        ...["--base-url", mockUrl, "--api-key", "any-key", "--level", "shape", "--subscriber", "user-8421"],
      ],
      apps.conformance,
    );
    expect(out).toContain("shape rules only");
    expect(out).toMatch(/\n(\d+) passed, 0 failed\n$/);
  }, 120_000);

  // Every rule under Node 24, the LTS we recommend; under Node 20 a group of rules that reaches every operation, with
  // both keys (each rule passes in process on every driver: test/conformance, and every rule again under Node 24 here).
  const everyRule = runtime === "Node 24";
  it(`the conformance command passes ${everyRule ? "every rule" : "a rule for each operation"} against the server command`, () => {
    const conformance = join(apps.conformance, "node_modules", ".bin", "novu-query-conformance");
    const groups = ["oracle.", "auth.", "isolation.", "list.pages", "patch.fields"];
    const out = run(
      node,
      [
        conformance,
        ...["--base-url", server.baseUrl, "--api-key", server.keys.Production ?? ""],
        ...["--other-api-key", server.keys.Development ?? "", "--requests-per-second", "0"],
        ...(everyRule ? [] : groups.flatMap((group) => ["--rule", group])),
      ],
      apps.conformance,
    );
    expect(out).toContain("all rules");
    expect(out).toMatch(/\n(\d+) passed, 0 failed\n$/);
    if (!everyRule) for (const id of operationIds) expect(out).toMatch(new RegExp(`✓ auth\\.missing\\.${id} `));
  }, 120_000);
});
