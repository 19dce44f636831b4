/**
 * The contract's TanStack Query entries for Vue and Svelte, as teams of those frameworks meet them: one folder with a
 * Vite + Vue 3 app (`/vue-query`) and a Vite + Svelte 5 app (`/svelte-query`) on the packed contract. Each app's
 * TypeScript type-checks (an infinite query's error narrows to the 422 body, a network failure and an answer that is
 * not the contract's with no cast; a PATCH body field the contract lacks does not compile) and builds with Vite. Then
 * each entry runs under its own adapter's QueryClient over MSW's stateful mode: an infinite search pages three times
 * to its end, and a PATCH whose first answer is a 503 is retried by `retryPolicy` with the same idempotency key and
 * applied once. The Vue check runs in Node as it is; the Svelte one is built by Vite for Node first, since
 * `@tanstack/svelte-query` ships `.svelte` components that only the Svelte compiler reads. Last, each built app runs
 * in headless Chromium against the stateful mock: it lists every subscriber by clicking "More" until the pages end, and
 * a "Rename" saves a PATCH that the server keeps and the list then shows.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { appFolder, ours } from "../support/app-folder.js";
import { launchBrowser, serveSite } from "../support/browser.js";
import { packedTarballs } from "../support/tarballs.js";

const { dir: app, run, mustRun, write, install } = appFolder("novu-query-frameworks-app-");

/** What a screen shows for each way the search can fail: every branch narrows with no cast. */
const problemOf = (error: string) => `if (!${error}) return undefined;
    if (${error}.statusCode === 422) return Object.keys(${error}.body.errors).join(", ");
    if (${error}.kind === "unexpected") return \`The server answered \${${error}.status}: \${${error}.body.slice(0, 80)}\`;
    if (${error}.kind === "network") return \`Offline: \${${error}.message}\`;
    return \`\${${error}.body.message} (\${${error}.statusCode}; retry in \${${error}.retryAfter ?? "?"} s)\`;`;

/** The runtime check, the same for both adapters: `adapter` is the TanStack package, `entry` the contract's. */
const check = (
  adapter: string,
  entry: string,
) => `import { InfiniteQueryObserver, MutationObserver, QueryClient } from "${adapter}";
import { createClient } from "@novu-query/contract";
import { createStatefulHandlers } from "@novu-query/contract/msw";
import { createQueries, retryPolicy } from "@novu-query/contract/${entry}";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";

const mock = createStatefulHandlers({ subscribers: 25, seed: 5 });
const server = setupServer(...mock.handlers);
server.listen({ onUnhandledRequest: "error" });
const queries = createQueries(createClient({ baseUrl: "https://api.example.com", apiKey: "demo" }));
const client = new QueryClient();
const observer = new InfiniteQueryObserver(client, queries.searchSubscribersInfinite({ limit: 10 }));
let result = await observer.refetch();
while (result.hasNextPage) result = await observer.fetchNextPage();
const pages = result.data.pages.map((page) => page.data.length);
const first = result.data.pages[0].data[0];

// The first answer to the PATCH is lost behind a 503; retryPolicy retries it with the same idempotency key.
const keys = [];
server.events.on("request:start", ({ request }) => {
  if (request.method === "PATCH") keys.push(request.headers.get("idempotency-key"));
});
server.use(
  http.patch("*/v2/subscribers/:subscriberId", () => new HttpResponse("upstream unavailable", { status: 503 }), { once: true }),
);
const rename = new MutationObserver(client, { ...queries.patchSubscriber(), ...retryPolicy({ baseDelayMs: 10 }) });
const patched = await rename.mutate({ subscriberId: first.subscriberId, body: { firstName: "Ada" } });
server.close();
console.log(JSON.stringify({
  pages,
  keys: keys.length,
  sameKey: new Set(keys).size === 1,
  firstName: patched.firstName,
  versions: [first.__v, patched.__v],
  invalidates: queries.keys.subscribers(),
}));
`;

const files: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      module: "ESNext",
      moduleResolution: "bundler",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      verbatimModuleSyntax: true,
      types: [],
    },
    include: ["vue/src", "svelte/src"],
  }),

  "vue/index.html": `<!doctype html><html><body><div id="app"></div><script type="module" src="/src/main.ts"></script></body></html>\n`,
  "vue/vite.config.ts": `import vue from "@vitejs/plugin-vue";\nimport { defineConfig } from "vite";\nexport default defineConfig({ plugins: [vue()] });\n`,
  "vue/src/env.d.ts": `declare module "*.vue" {\n  const component: import("vue").Component;\n  export default component;\n}\n`,
  "vue/src/subscribers.ts": `import { createClient } from "@novu-query/contract";
import { createQueries, notificationOptions, retryPolicy } from "@novu-query/contract/vue-query";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/vue-query";
import { computed } from "vue";

// The API and key from the page's address (?api=...&key=...), as a deployment's configuration would give them.
const address = new URLSearchParams(globalThis.location?.search ?? "");
const api = createClient({ baseUrl: address.get("api") ?? "/api", apiKey: address.get("key") ?? "demo" });
export const queries = createQueries(api);

export function useSubscribers() {
  const client = useQueryClient();
  const pages = useInfiniteQuery(queries.searchSubscribersInfinite({ limit: 10 }));
  const rows = computed(() => pages.data.value?.pages.flatMap((page) => page.data) ?? []);
  const rename = useMutation({
    ...queries.patchSubscriber(),
    onSuccess: () => void client.invalidateQueries({ queryKey: queries.keys.subscribers() }),
  });
  const problem = computed(() => {
    const error = pages.error.value;
    ${problemOf("error")}
  });
  return { pages, rows, rename, problem };
}

export function useNotificationId(notificationId: string) {
  // One operation imported on its own, as a screen that needs only it does.
  const notification = useQuery({ ...notificationOptions(api, notificationId), ...retryPolicy() });
  return computed((): string | undefined => notification.data.value?._id);
}
`,
  "vue/src/refused.ts": `import { useInfiniteQuery, useMutation } from "@tanstack/vue-query";
import { queries } from "./subscribers";

export function refused() {
  const rename = useMutation(queries.patchSubscriber());
  // @ts-expect-error a PATCH body field the contract lacks
  rename.mutate({ subscriberId: "a", body: { nickname: "x" } });
  const error = useInfiniteQuery(queries.searchSubscribersInfinite()).error.value;
  if (error?.statusCode === 401) {
    // @ts-expect-error only a 422 body has errors
    void error.body.errors;
  }
}
`,
  "vue/src/App.vue": `<script setup lang="ts">
import { useSubscribers } from "./subscribers";
const { pages, rows, rename, problem } = useSubscribers();
</script>

<template>
  <p v-if="problem">{{ problem }}</p>
  <ul>
    <li v-for="s in rows" :key="s._id" :data-id="s.subscriberId">
      {{ s.firstName }}
      <button type="button" @click="rename.mutate({ subscriberId: s.subscriberId, body: { firstName: 'Ada' } })">Rename</button>
    </li>
  </ul>
  <button v-if="pages.hasNextPage.value" type="button" @click="pages.fetchNextPage()">More</button>
</template>
`,
  "vue/src/main.ts": `import { VueQueryPlugin } from "@tanstack/vue-query";
import { createApp } from "vue";
import App from "./App.vue";

createApp(App).use(VueQueryPlugin).mount("#app");
`,
  "check-vue.mjs": check("@tanstack/vue-query", "vue-query"),

  "svelte/index.html": `<!doctype html><html><body><div id="app"></div><script type="module" src="/src/main.ts"></script></body></html>\n`,
  "svelte/vite.config.ts": `import { svelte } from "@sveltejs/vite-plugin-svelte";\nimport { defineConfig } from "vite";\n// For the Node build of check.ts: the adapter (and the contract's entry that imports it) compiled into it, since Node\n// cannot import the adapter's .svelte components.\nexport default defineConfig({ plugins: [svelte()], ssr: { noExternal: ["@tanstack/svelte-query", "@novu-query/contract"] } });\n`,
  "svelte/src/env.d.ts": `declare module "*.svelte" {\n  const component: import("svelte").Component;\n  export default component;\n}\n`,
  "svelte/src/subscribers.svelte.ts": `import { createClient } from "@novu-query/contract";
import { createQueries } from "@novu-query/contract/svelte-query";
import { createInfiniteQuery, createMutation, useQueryClient } from "@tanstack/svelte-query";

// The API and key from the page's address (?api=...&key=...), as a deployment's configuration would give them.
const address = new URLSearchParams(globalThis.location?.search ?? "");
export const queries = createQueries(
  createClient({ baseUrl: address.get("api") ?? "/api", apiKey: address.get("key") ?? "demo" }),
);

export function subscribers() {
  const client = useQueryClient();
  const pages = createInfiniteQuery(() => queries.searchSubscribersInfinite({ limit: 10 }));
  const rename = createMutation(() => ({
    ...queries.patchSubscriber(),
    onSuccess: () => void client.invalidateQueries({ queryKey: queries.keys.subscribers() }),
  }));
  const rows = () => pages.data?.pages.flatMap((page) => page.data) ?? [];
  const problem = () => {
    const error = pages.error;
    ${problemOf("error")}
  };
  return { pages, rows, rename, problem };
}
`,
  "svelte/src/refused.ts": `import { createInfiniteQuery, createMutation } from "@tanstack/svelte-query";
import { queries } from "./subscribers.svelte";

export function refused() {
  const rename = createMutation(() => queries.patchSubscriber());
  // @ts-expect-error a PATCH body field the contract lacks
  rename.mutate({ subscriberId: "a", body: { nickname: "x" } });
  const error = createInfiniteQuery(() => queries.searchSubscribersInfinite()).error;
  if (error?.statusCode === 401) {
    // @ts-expect-error only a 422 body has errors
    void error.body.errors;
  }
}
`,
  "svelte/src/App.svelte": `<script lang="ts">
  import { subscribers } from "./subscribers.svelte";
  const { pages, rows, rename, problem } = subscribers();
</script>

{#if problem()}<p>{problem()}</p>{/if}
<ul>
  {#each rows() as s (s._id)}
    <li data-id={s.subscriberId}>
      {s.firstName}
      <button type="button" onclick={() => rename.mutate({ subscriberId: s.subscriberId, body: { firstName: "Ada" } })}>Rename</button>
    </li>
  {/each}
</ul>
{#if pages.hasNextPage}<button type="button" onclick={() => pages.fetchNextPage()}>More</button>{/if}
`,
  "svelte/src/Root.svelte": `<script lang="ts">
  import { QueryClient, QueryClientProvider } from "@tanstack/svelte-query";
  import App from "./App.svelte";
  const client = new QueryClient();
</script>

<QueryClientProvider {client}><App /></QueryClientProvider>
`,
  "svelte/src/main.ts": `import { mount } from "svelte";
import Root from "./Root.svelte";

mount(Root, { target: document.getElementById("app") as HTMLElement });
`,
  "svelte/check.ts": check("@tanstack/svelte-query", "svelte-query"),
};

beforeAll(() => {
  const tarballs = packedTarballs();
  write("frontend-frameworks-app", files);
  install([
    tarballs["@novu-query/contract"] as string,
    "vue@3",
    "@tanstack/vue-query@5",
    "@vitejs/plugin-vue@6",
    "svelte@5",
    "@tanstack/svelte-query@6",
    "@sveltejs/vite-plugin-svelte@7",
    "vite@8",
    ours("msw"),
    ours("ajv"),
    ours("ajv-formats"),
    ours("typescript"),
  ]);
}, 600_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

const tsc = ["node_modules/typescript/bin/tsc", "-p", "."];
const vite = (...args: string[]) => mustRun(process.execPath, ["node_modules/vite/bin/vite.js", ...args]);

describe("Vue and Svelte apps on the packed contract", () => {
  it("type-check: errors narrow with no cast, and what must not compile does not", () => {
    expect(run(process.execPath, tsc)).toEqual({ status: 0, output: "" });
    const refused = ["vue/src/refused.ts", "svelte/src/refused.ts"];
    const texts = refused.map((file) => readFileSync(join(app, file), "utf8"));
    const writeRefused = (text: (n: number) => string) => {
      for (const [n, file] of refused.entries()) writeFileSync(join(app, file), text(n));
    };
    writeRefused((n) => (texts[n] as string).replaceAll("// @ts-expect-error", "//"));
    try {
      const { status, output } = run(process.execPath, tsc);
      expect(status).not.toBe(0);
      for (const file of refused) {
        expect(output.match(new RegExp(`${file.replace(".", "\\.")}\\(\\d+,\\d+\\): error`, "g")), output).toHaveLength(
          2,
        );
      }
      expect(output).toContain("nickname");
    } finally {
      writeRefused((n) => texts[n] as string);
    }
  }, 120_000);

  it.each(["vue", "svelte"])(
    "build with Vite (%s)",
    (framework) => {
      const output = vite("build", framework, "--logLevel", "warn");
      expect(output).not.toMatch(/error/i);
      expect(readFileSync(join(app, framework, "dist", "index.html"), "utf8")).toContain("<script");
    },
    120_000,
  );
});

describe.each([
  ["/vue-query under @tanstack/vue-query", () => mustRun(process.execPath, ["check-vue.mjs"])],
  [
    "/svelte-query under @tanstack/svelte-query",
    () => {
      // Built for Node by Vite with the Svelte plugin, which compiles the adapter's components for the server.
      vite(
        "build",
        "--config",
        "svelte/vite.config.ts",
        "--ssr",
        "svelte/check.ts",
        "--outDir",
        "svelte/dist-node",
        "--logLevel",
        "warn",
      );
      return mustRun(process.execPath, ["svelte/dist-node/check.js"]);
    },
  ],
])("%s", (_name, runCheck) => {
  it("pages an infinite search to its end, and retries a PATCH with one idempotency key, applied once", () => {
    const printed = JSON.parse(runCheck().trim().split("\n").at(-1) as string);
    expect(printed.pages).toEqual([10, 10, 5]);
    expect(printed.keys).toBe(2);
    expect(printed.sameKey).toBe(true);
    expect(printed.firstName).toBe("Ada");
    expect(printed.versions[1]).toBe(printed.versions[0] + 1);
    expect(printed.invalidates).toEqual(["novu-query", "subscribers"]);
  }, 120_000);
});

/** A Vite build's files, for serveSite: path -> [content type, text]. */
function builtSite(dir: string): Record<string, [string, string]> {
  const types: Record<string, string> = { html: "text/html", js: "text/javascript", css: "text/css" };
  const files: Record<string, [string, string]> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const type = types[entry.name.split(".").at(-1) ?? ""] ?? "application/octet-stream";
    files[`/${path.slice(dir.length + 1)}`] = [type, readFileSync(path, "utf8")];
  }
  files["/"] = files["/index.html"] as [string, string];
  return files;
}

describe("the built apps in headless Chromium, against the stateful mock", () => {
  let mock: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    // Built here too (a second or so each), so that these tests do not depend on the build tests having run.
    for (const framework of ["vue", "svelte"]) vite("build", framework, "--logLevel", "warn");
    mock = await startServerProcess({ DEMO_SUBSCRIBERS: "40", DEMO_NOTIFICATIONS: "10" }, ["mock"]);
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.stop();
  });

  it.each(["vue", "svelte"])(
    "%s: lists the subscribers page by page to the end, and saves a PATCH that the list then shows",
    async (framework) => {
      const key = mock.keys.Production as string;
      const ask = async (query: string) =>
        (await (
          await fetch(`${mock.baseUrl}/v2/subscribers?${query}`, { headers: { authorization: `ApiKey ${key}` } })
        ).json()) as {
          totalCount: number;
          data: { subscriberId: string; firstName: string | null }[];
        };
      const site = await serveSite(builtSite(join(app, framework, "dist")));
      const page = await browser.newPage();
      try {
        await page.goto(`${site.url}?api=${encodeURIComponent(mock.baseUrl)}&key=${key}`);
        await page.waitForSelector("li");
        const more = page.getByRole("button", { name: "More" });
        let pages = 1;
        while ((await more.count()) > 0) {
          const shown = await page.locator("li").count();
          await more.click();
          await page.waitForFunction((before) => document.querySelectorAll("li").length > before, shown);
          pages++;
        }
        const ids = await page.locator("li").evaluateAll((items) => items.map((item) => item.getAttribute("data-id")));
        expect(ids.length).toBe((await ask("limit=1")).totalCount);
        expect(new Set(ids).size).toBe(ids.length);
        expect(pages).toBe(Math.ceil(ids.length / 10));
        expect(pages).toBeGreaterThan(1);

        const target = ids[0] as string;
        await page.locator(`li[data-id="${target}"]`).getByRole("button", { name: "Rename" }).click();
        // The server keeps it, and the list shows it once its pages are fetched again (onSuccess invalidates them).
        await expect
          .poll(async () => (await ask(`subscriberId=${encodeURIComponent(target)}`)).data[0]?.firstName)
          .toBe("Ada");
        await page.waitForFunction(
          (id) => /^\s*Ada\s+Rename\s*$/.test(document.querySelector(`li[data-id="${id}"]`)?.textContent ?? ""),
          target,
        );
      } finally {
        await page.close();
        await site.close();
      }
    },
    120_000,
  );
});
