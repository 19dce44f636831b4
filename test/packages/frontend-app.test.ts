/**
 * The contract as a frontend team meets it: a Vite + React app in a temporary folder, with the packed contract and
 * what such an app installs beside it (React, TanStack Query, openapi-react-query, MSW, zod, TypeScript 7). The app
 * type-checks (openapi-react-query takes the client with no cast; a PATCH body field the contract lacks, or reading
 * `errors` off a non-422 error, does not compile) and builds with Vite; a script under Node 20 and Node 24 pages an
 * infinite query three times over MSW's stateful mode, makes 10,000 subscribers and notifications with the factories
 * and checks each against the spec, and parses every example of the spec with the zod schemas.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeRuntimes } from "../support/node-runtimes.js";
import { packedTarballs } from "../support/tarballs.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const app = mkdtempSync(join(tmpdir(), "novu-query-frontend-app-"));

function run(command: string, args: string[], cwd = app) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function mustRun(command: string, args: string[], cwd = app): string {
  const { status, output } = run(command, args, cwd);
  if (status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${status}:\n${output}`);
  return output;
}

/** The version this repository tests with, so the app meets what the tests here met. */
const ours = (name: string) =>
  `${name}@${JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version}`;

const files: Record<string, string> = {
  "index.html": `<!doctype html><html><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>\n`,
  "vite.config.ts": `import react from "@vitejs/plugin-react";\nimport { defineConfig } from "vite";\nexport default defineConfig({ plugins: [react()] });\n`,
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      module: "ESNext",
      moduleResolution: "bundler",
      jsx: "react-jsx",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      verbatimModuleSyntax: true,
      erasableSyntaxOnly: true,
      types: [],
    },
    include: ["src"],
  }),
  "src/api.ts": `import { createClient } from "@novu-query/contract";
import { createQueries } from "@novu-query/contract/react-query";
import createQueryClient from "openapi-react-query";

export const api = createClient({ baseUrl: "/api", apiKey: "demo" });
export const queries = createQueries(api);
// openapi-react-query takes the typed client as it is.
export const $api = createQueryClient(api);
`,
  "src/App.tsx": `import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { severityLevelValues } from "@novu-query/contract";
import { zPatchSubscriberBody } from "@novu-query/contract/zod";
import { $api, queries } from "./api";

export function App() {
  const client = useQueryClient();
  const pages = useInfiniteQuery(queries.searchSubscribersInfinite({ limit: 10 }));
  const latest = $api.useQuery("get", "/v1/notifications", { params: { query: { limit: 5, severity: ["high"] } } });
  const rename = useMutation({
    ...queries.patchSubscriber(),
    onSuccess: () => client.invalidateQueries({ queryKey: queries.keys.subscribers() }),
  });
  const rows = pages.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <main>
      <p>{severityLevelValues.join(", ")}</p>
      {latest.error?.statusCode === 422 ? <p>{Object.keys(latest.error.errors).join(", ")}</p> : null}
      <ul>
        {rows.map((s) => (
          <li key={s._id}>
            {s.firstName}{" "}
            <button type="button" onClick={() => rename.mutate({ subscriberId: s.subscriberId, body: zPatchSubscriberBody.parse({ firstName: "Ada" }) })}>
              Rename
            </button>
          </li>
        ))}
      </ul>
      {pages.hasNextPage ? <button type="button" onClick={() => pages.fetchNextPage()}>More</button> : null}
    </main>
  );
}
`,
  "src/main.tsx": `import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import { App } from "./App";

createRoot(document.getElementById("root") as HTMLElement).render(
  <QueryClientProvider client={new QueryClient()}>
    <App />
  </QueryClientProvider>,
);
`,
  "src/refused.ts": `import { api, $api } from "./api";

export async function refused() {
  // @ts-expect-error a PATCH body field the contract lacks
  await api.PATCH("/v2/subscribers/{subscriberId}", { params: { path: { subscriberId: "a" } }, body: { nickname: "x" } });
  const { error } = await api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId: "x" } } });
  if (error?.statusCode === 404) {
    // @ts-expect-error only a 422 body has errors
    void error.errors;
  }
  // @ts-expect-error openapi-react-query knows the paths too
  $api.useQuery("get", "/v1/nope");
}
`,
  "check.mjs": `import { InfiniteQueryObserver, QueryClient } from "@tanstack/react-query";
import { createClient } from "@novu-query/contract";
import { createFactories } from "@novu-query/contract/factories";
import { createStatefulHandlers } from "@novu-query/contract/msw";
import { createQueries } from "@novu-query/contract/react-query";
import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import * as zod from "@novu-query/contract/zod";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { setupServer } from "msw/node";

const mock = createStatefulHandlers({ subscribers: 25, seed: 5 });
const server = setupServer(...mock.handlers);
server.listen({ onUnhandledRequest: "error" });
const queries = createQueries(createClient({ baseUrl: "/api", apiKey: "demo" }));
const observer = new InfiniteQueryObserver(new QueryClient(), queries.searchSubscribersInfinite({ limit: 10 }));
let result = await observer.refetch();
while (result.hasNextPage) result = await observer.fetchNextPage();
const pages = result.data.pages.map((page) => page.data.length);
server.close();

const ajv = new Ajv2020({ strict: false });
(addFormats.default ?? addFormats)(ajv);
ajv.addSchema(spec, "spec");
const subscriberValid = ajv.compile({ $ref: "spec#/components/schemas/Subscriber" });
const notificationValid = ajv.compile({ $ref: "spec#/components/schemas/Notification" });
let valid = 0;
for (let seed = 1; seed <= 1000; seed++) {
  const make = createFactories({ seed });
  const subscribers = make.subscribers(10);
  valid += subscribers.filter((s) => subscriberValid(s)).length;
  valid += make.notifications(10, undefined, subscribers).filter((n) => notificationValid(n)).length;
}

const resolve = (node) => (node?.$ref ? resolve(node.$ref.slice(2).split("/").reduce((at, key) => at[key], spec)) : node);
const examples = [];
for (const item of Object.values(spec.paths)) {
  for (const operation of Object.values(item)) {
    const medias = [operation.requestBody, ...Object.values(operation.responses)].map((r) => resolve(r)?.content?.["application/json"]);
    for (const media of medias.filter(Boolean)) {
      const ref = media.schema.$ref ?? media.schema.allOf[0].$ref;
      for (const example of Object.values(media.examples ?? {})) examples.push([zod["z" + ref.split("/").at(-1)], resolve(example).value]);
    }
  }
}
const parsed = examples.filter(([schema, value]) => schema.safeParse(value).success).length;
const wrongRefused = !zod.zSubscriber.safeParse({ subscriberId: "" }).success;
console.log(JSON.stringify({ node: process.version, pages, valid, examples: examples.length, parsed, wrongRefused }));
`,
};

beforeAll(() => {
  const tarballs = packedTarballs();
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(app, file, ".."), { recursive: true });
    writeFileSync(join(app, file), text);
  }
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "frontend-app", private: true, type: "module" })}\n`,
  );
  mustRun("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    tarballs["@novu-query/contract"] as string,
    "react@19",
    "react-dom@19",
    "@tanstack/react-query@5",
    "openapi-react-query@0.5",
    "zod@4",
    ours("msw"),
    ours("ajv"),
    ours("ajv-formats"),
    "vite@8",
    "@vitejs/plugin-react@6",
    "typescript@7",
    "@types/react@19",
    "@types/react-dom@19",
  ]);
}, 600_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

describe("a Vite + React app on the packed contract", () => {
  it("type-checks with TypeScript 7: openapi-react-query with no cast, and what must not compile does not", () => {
    expect(mustRun(process.execPath, ["node_modules/typescript/bin/tsc", "--version"])).toMatch(/^Version 7\./);
    expect(run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."])).toEqual({ status: 0, output: "" });
    const refused = readFileSync(join(app, "src/refused.ts"), "utf8");
    writeFileSync(join(app, "src/refused.ts"), refused.replaceAll("// @ts-expect-error", "//"));
    try {
      const { status, output } = run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."]);
      expect(status).not.toBe(0);
      expect(output.match(/src\/refused\.ts\(\d+,\d+\): error/g)).toHaveLength(3);
    } finally {
      writeFileSync(join(app, "src/refused.ts"), refused);
    }
  }, 120_000);

  it("builds with Vite", () => {
    const output = mustRun(process.execPath, ["node_modules/vite/bin/vite.js", "build", "--logLevel", "warn"]);
    expect(output).not.toMatch(/error/i);
    expect(readFileSync(join(app, "dist", "index.html"), "utf8")).toContain("<script");
  }, 120_000);
});

describe.each(nodeRuntimes)("the contract's entries in the app under %s", (runtime, findNode) => {
  it("page an infinite query three times over MSW's stateful mode, make 10,000 valid records, parse every example", () => {
    const printed = JSON.parse(mustRun(findNode(), ["check.mjs"]).trim().split("\n").at(-1) as string);
    expect(printed.node).toMatch(runtime === "Node 24" ? /^v24\./ : /^v20\./);
    expect(printed.pages).toEqual([10, 10, 5]);
    expect(printed.valid).toBe(20_000);
    expect(printed.examples).toBeGreaterThan(30);
    expect(printed.parsed).toBe(printed.examples);
    expect(printed.wrongRefused).toBe(true);
  }, 120_000);
});
