/**
 * The contract's MSW handlers in a real browser: a page bundled with esbuild (test/mock/msw-page/main.ts) registers
 * MSW's service worker, calls an API on another origin through the typed client, renders the named examples and
 * every documented error state of the list, and runs the shape-level conformance rules, all in headless Chromium.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleBody } from "../../contract/msw.js";
import { operationTable } from "../../generated/operations.js";
import { launchBrowser, type Site, serveSite } from "../support/browser.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

interface PageResult {
  controlled: boolean;
  listStatus: number;
  transactionIds: string[];
  errors: Record<string, string>;
  invalid: string[];
  conformance: { id: string; passed: boolean; reason?: string }[];
}

describe("MSW handlers in Chromium (service worker)", () => {
  let site: Site;
  let browser: Browser;
  let result: PageResult;
  let pageText: string;

  beforeAll(async () => {
    const bundle = await build({
      absWorkingDir: root,
      entryPoints: ["test/mock/msw-page/main.ts"],
      tsconfig: "tsconfig.json",
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    const files: Record<string, [string, string]> = {
      "/": [
        "text/html",
        '<!doctype html><title>app</title><ul id="states"></ul><script type="module" src="/main.js"></script>',
      ],
      "/main.js": ["text/javascript", bundle.outputFiles[0]?.text ?? ""],
      "/mockServiceWorker.js": [
        "text/javascript",
        readFileSync(`${root}node_modules/msw/lib/mockServiceWorker.js`, "utf8"),
      ],
    };
    site = await serveSite(files);
    browser = await launchBrowser();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(site.url);
    await page.waitForFunction('"result" in window', undefined, { timeout: 60_000 });
    result = (await page.evaluate("window.result")) as PageResult;
    pageText = (await page.textContent("#states")) ?? "";
    expect(problems).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it("serves the page's cross-origin API calls from the service worker", () => {
    expect(result.controlled).toBe(true);
    expect(result.listStatus).toBe(200);
  });

  it("shows the named example of the list", () => {
    const example = exampleBody("listNotifications", 200);
    expect(result.transactionIds).toEqual(example.data.map((notification) => notification.transactionId));
    for (const notification of example.data) expect(pageText).toContain(notification.transactionId);
  });

  it("shows each documented error state with the example's message", () => {
    const statuses = operationTable.listNotifications.statuses.filter((status) => status >= 400);
    expect(Object.keys(result.errors).map(Number)).toEqual(statuses);
    for (const status of statuses) {
      const message = (exampleBody("listNotifications", status) as { message: string }).message;
      expect(result.errors[status]).toBe(message);
      expect(pageText).toContain(`${status}: ${message}`);
    }
  });

  it("refuses an invalid request with 422 naming the parameter", () => {
    expect(result.invalid).toEqual(["query.limit"]);
  });

  it("passes the shape-level conformance rules in the browser", () => {
    expect(result.conformance.filter((rule) => !rule.passed)).toEqual([]);
    expect(result.conformance.length).toBeGreaterThanOrEqual(10);
  });
});
