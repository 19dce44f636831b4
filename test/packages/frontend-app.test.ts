/**
 * The contract as a frontend team meets it: a Vite + React app in a temporary folder, with the packed contract and
 * what such an app installs beside it (React, TanStack Query, openapi-react-query, MSW, zod, TypeScript 7). The app
 * type-checks (openapi-react-query takes the client with no cast; a query's error narrows to the 422 body, an answer
 * that is not the contract's and a network failure with no cast; a PATCH body field the contract lacks does not
 * compile, and the compiler's message names it) and builds with Vite. A script under Node 20 and Node 24 pages an
 * infinite query three times over MSW's stateful mode and to its end over the static handlers without a repeated id,
 * meets a 422, a proxy's HTML 502 and a 429 as typed errors, has a malformed 200 refused by `validateAnswers`, makes 10,000 subscribers and notifications with the
 * factories and checks each against the spec, and parses every example of the spec with the zod schemas. Vite bundles
 * one zod schema imported from the contract, the same schema written by hand, and the contract's module as it was
 * before its schemas were marked pure: the first two must cost the same.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFolder, ours } from "../support/app-folder.js";
import { nodeRuntimes } from "../support/node-runtimes.js";
import { packedTarballs } from "../support/tarballs.js";

const { dir: app, run, mustRun, write, install } = appFolder("novu-query-frontend-app-");

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
import { NotificationErrors } from "./errors";

export function App() {
  const client = useQueryClient();
  const pages = useInfiniteQuery(queries.searchSubscribersInfinite({ limit: 10 }));
  const latest = $api.useQuery("get", "/v1/notifications", { params: { query: { limit: 5, severity: ["high"] } } });
  const rename = useMutation({
    ...queries.patchSubscriber(),
    onSuccess: () => void client.invalidateQueries({ queryKey: queries.keys.subscribers() }),
  });
  const rows = pages.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <main>
      <NotificationErrors />
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
  "src/errors.tsx": `import { useQuery } from "@tanstack/react-query";
import { retryPolicy } from "@novu-query/contract/react-query";
import { queries } from "./api";

/** Every way a list can fail, each narrowed without a cast. */
export function NotificationErrors() {
  const { error } = useQuery({ ...queries.listNotifications({ limit: 5 }), ...retryPolicy() });
  if (!error) return null;
  if (error.statusCode === 422) return <p>{Object.keys(error.body.errors).join(", ")}</p>;
  if (error.kind === "unexpected") return <p>{\`The server answered \${error.status}: \${error.body.slice(0, 80)}\`}</p>;
  if (error.kind === "network") return <p>Offline: {error.message}</p>;
  const wait: number | undefined = error.retryAfter;
  return <p>{\`\${error.body.message} (\${error.statusCode}; retry in \${wait ?? "?"} s; request \${error.requestId})\`}</p>;
}
`,
  "bundle-zod.mjs": `import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import { build } from "vite";

const generated = readFileSync(createRequire(import.meta.url).resolve("@novu-query/contract/zod"), "utf8");
const start = generated.indexOf("export const zPatchSubscriberRequest = /*#__PURE__*/ (() => ");
const expression = generated.slice(generated.indexOf("(() => ", start) + 7, generated.indexOf("))();", start) + 1);
const use = "console.log(zPatchSubscriberBody.safeParse(globalThis.input).success);";
const entries = {
  hand: \`import { z } from "zod";\\nconst zPatchSubscriberBody = \${expression};\\n\${use}\\n\`,
  contract: \`import { zPatchSubscriberBody } from "@novu-query/contract/zod";\\n\${use}\\n\`,
  unmarked: \`import { zPatchSubscriberBody } from "./zod-unmarked-module.js";\\n\${use}\\n\`,
};
// The contract's module as it was before its schemas were marked pure (0.3.0): what importing one cost then.
writeFileSync("zod-unmarked-module.js", generated.replaceAll("/*#__PURE__*/ ", ""));
const sizes = {};
for (const [name, text] of Object.entries(entries)) {
  writeFileSync(\`zod-\${name}.js\`, text);
  const output = await build({
    configFile: false,
    logLevel: "silent",
    build: { write: false, minify: true, rollupOptions: { input: \`zod-\${name}.js\` } },
  });
  const code = (Array.isArray(output) ? output : [output])
    .flatMap((result) => result.output)
    .filter((chunk) => chunk.type === "chunk")
    .map((chunk) => chunk.code)
    .join("");
  sizes[name] = { min: code.length, gzip: gzipSync(code).length };
}
console.log(JSON.stringify(sizes));
`,
  "bundle-options.mjs": `import { writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "vite";

// What one operation's query options add to an app that already uses the typed client: each bundle holds the client
// and a call of it; React and React Query stay outside (the app has them whatever it imports from us).
const client = 'import { createClient } from "@novu-query/contract";\\nconst api = createClient({ baseUrl: "/api", apiKey: "k" });\\n';
const entries = {
  client: \`\${client}globalThis.use = [api.GET("/v2/subscribers", {})];\\n\`,
  searchSubscribers: \`import { searchSubscribersInfiniteOptions } from "@novu-query/contract/react-query";\\n\${client}globalThis.use = [searchSubscribersInfiniteOptions(api, { limit: 10 })];\\n\`,
  listNotifications: \`import { listNotificationsOptions } from "@novu-query/contract/react-query";\\n\${client}globalThis.use = [listNotificationsOptions(api, { limit: 10 })];\\n\`,
  getNotification: \`import { notificationOptions } from "@novu-query/contract/react-query";\\n\${client}globalThis.use = [notificationOptions(api, "n")];\\n\`,
  patchSubscriber: \`import { patchSubscriberOptions, retryPolicy } from "@novu-query/contract/react-query";\\n\${client}globalThis.use = [patchSubscriberOptions(api), retryPolicy()];\\n\`,
  all: \`import { createQueries, retryPolicy } from "@novu-query/contract/react-query";\\n\${client}globalThis.use = [createQueries(api), retryPolicy()];\\n\`,
};
const sizes = {};
for (const [name, text] of Object.entries(entries)) {
  writeFileSync(\`options-\${name}.js\`, text);
  const output = await build({
    configFile: false,
    logLevel: "silent",
    build: {
      write: false,
      minify: true,
      rollupOptions: { input: \`options-\${name}.js\`, external: [/^react/, /^@tanstack\\//] },
    },
  });
  const code = (Array.isArray(output) ? output : [output])
    .flatMap((result) => result.output)
    .filter((chunk) => chunk.type === "chunk")
    .map((chunk) => chunk.code)
    .join("");
  sizes[name] = { min: code.length, gzip: gzipSync(code).length };
}
console.log(JSON.stringify(sizes));
`,
  "check.mjs": `import { InfiniteQueryObserver, QueryClient, QueryObserver } from "@tanstack/react-query";
import { createClient, dataOrThrow } from "@novu-query/contract";
import { createFactories } from "@novu-query/contract/factories";
import { answer, createStatefulHandlers, exampleBody, handlers } from "@novu-query/contract/msw";
import { validateAnswers } from "@novu-query/contract/validate-answers";
import { createQueries } from "@novu-query/contract/react-query";
import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import * as zod from "@novu-query/contract/zod";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { HttpResponse, http } from "msw";
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

// The static handlers: infinite queries end, with no id twice; the errors a screen shows, typed.
const staticServer = setupServer(...handlers);
staticServer.listen({ onUnhandledRequest: "error" });
const staticClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
const walk = async (options) => {
  const walker = new InfiniteQueryObserver(staticClient, options);
  let walked = await walker.refetch();
  while (walked.hasNextPage) walked = await walker.fetchNextPage();
  return walked.data.pages.flatMap((page) => page.data.map((row) => row._id));
};
const searchIds = await walk(queries.searchSubscribersInfinite({ limit: 10 }));
const listIds = await walk(queries.listNotificationsInfinite({ limit: 10 }));
const staticWalks = {
  search: { rows: searchIds.length, distinct: new Set(searchIds).size },
  list: { rows: listIds.length, distinct: new Set(listIds).size },
};
const failing = async (handler, limit) => {
  staticServer.use(handler);
  const { error } = await new QueryObserver(staticClient, queries.listNotifications({ limit })).refetch();
  staticServer.resetHandlers();
  return error;
};
const invalid = await failing(answer("listNotifications", 422), 1);
const gateway = await failing(
  http.get("*/v1/notifications", () => new HttpResponse("<html>Bad gateway</html>", { status: 502, headers: { "content-type": "text/html" } })),
  2,
);
const limited = await failing(answer("listNotifications", 429), 3);
const errors = {
  invalid: { kind: invalid.kind, statusCode: invalid.statusCode, fields: Object.keys(invalid.body.errors) },
  gateway: { kind: gateway.kind, status: gateway.status, body: gateway.body },
  limited: { statusCode: limited.statusCode, retryAfter: limited.retryAfter, requestId: typeof limited.requestId },
};
// Answers checked before they reach the screen, when asked for: a malformed 200 is refused, naming the field.
staticServer.use(
  http.get("*/v1/notifications/:notificationId", () =>
    HttpResponse.json({ ...exampleBody("getNotification", 200), createdAt: "yesterday" }),
  ),
);
const checked = createClient({ baseUrl: "/api", apiKey: "demo", validateAnswers });
const refusedAnswer = await dataOrThrow("getNotification", checked.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId: "n-1" } } })).catch((error) => error);
const validation = { kind: refusedAnswer.kind, fields: refusedAnswer.mismatches?.map((m) => m.path) };
staticServer.close();

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
console.log(JSON.stringify({ node: process.version, pages, staticWalks, errors, validation, valid, examples: examples.length, parsed, wrongRefused }));
`,
};

beforeAll(() => {
  const tarballs = packedTarballs();
  write("frontend-app", files);
  install([
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
      // TypeScript 7 names the field the contract lacks, in one message (it said "No overload matches this call"
      // before 0.3.0, the field six lines on).
      const message = output.split(/\n(?=\S)/).find((error) => error.includes("not in the contract: body.nickname"));
      expect(message?.split("\n")[0]).toContain("not in the contract: body.nickname");
      expect(message).not.toContain("No overload");
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

describe("the zod schemas in a Vite bundle", () => {
  it("cost what the same schema written by hand costs, when one is imported", () => {
    const sizes = JSON.parse(mustRun(process.execPath, ["bundle-zod.mjs"]).trim().split("\n").at(-1) as string);
    console.log(`one zod schema bundled by Vite: ${JSON.stringify(sizes)}`);
    // Each bundle holds zod itself and the one schema; the contract's module adds nothing to it.
    expect(sizes.contract.min - sizes.hand.min).toBeLessThanOrEqual(500);
    // Unmarked, the module kept every schema: over 10 kB more (the measured 0.3.0 cost was 15.7 kB).
    expect(sizes.unmarked.min - sizes.hand.min).toBeGreaterThan(10_000);
  }, 120_000);
});

describe("the query options in a Vite bundle", () => {
  it("add at most 1 kB gzip over the typed client for one operation, imported on its own", () => {
    const sizes = JSON.parse(mustRun(process.execPath, ["bundle-options.mjs"]).trim().split("\n").at(-1) as string);
    console.log(`the query options bundled by Vite (bytes over the typed client's bundle): ${JSON.stringify(sizes)}`);
    for (const operation of ["searchSubscribers", "listNotifications", "getNotification", "patchSubscriber"]) {
      expect(sizes[operation].gzip - sizes.client.gzip, operation).toBeLessThanOrEqual(1024);
    }
    // Every operation at once costs more than one: the per-operation imports are what keep one operation small.
    expect(sizes.all.gzip).toBeGreaterThan(sizes.searchSubscribers.gzip);
  }, 120_000);
});

describe.each(nodeRuntimes)("the contract's entries in the app under %s", (runtime, findNode) => {
  it("page an infinite query three times over MSW's stateful mode, make 10,000 valid records, parse every example", () => {
    const printed = JSON.parse(mustRun(findNode(), ["check.mjs"]).trim().split("\n").at(-1) as string);
    expect(printed.node).toMatch(runtime === "Node 24" ? /^v24\./ : /^v20\./);
    expect(printed.pages).toEqual([10, 10, 5]);
    // The static handlers' pages end, and no id comes twice (no duplicate React keys).
    expect(printed.staticWalks.search.rows).toBeGreaterThan(2);
    expect(printed.staticWalks.search.distinct).toBe(printed.staticWalks.search.rows);
    expect(printed.staticWalks.list.rows).toBeGreaterThan(2);
    expect(printed.staticWalks.list.distinct).toBe(printed.staticWalks.list.rows);
    expect(printed.errors).toEqual({
      invalid: { kind: "contract", statusCode: 422, fields: ["query.limit", "query.channels[0]"] },
      gateway: { kind: "unexpected", status: 502, body: "<html>Bad gateway</html>" },
      limited: { statusCode: 429, retryAfter: 1, requestId: "string" },
    });
    expect(printed.validation).toEqual({ kind: "unexpected", fields: ["createdAt"] });
    expect(printed.valid).toBe(20_000);
    expect(printed.examples).toBeGreaterThan(30);
    expect(printed.parsed).toBe(printed.examples);
    expect(printed.wrongRefused).toBe(true);
  }, 120_000);
});
