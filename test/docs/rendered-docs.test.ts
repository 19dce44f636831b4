import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser.js";

const docsUrl = pathToFileURL(fileURLToPath(new URL("../../generated/docs/index.html", import.meta.url))).href;
const screenshots = fileURLToPath(new URL("../../test-output/docs/", import.meta.url));

// The seed's field tables, which a reviewer ticks off in the rendered docs.
const seedFields: Record<string, string[]> = {
  subscriber: [
    "_id",
    "subscriberId",
    "firstName",
    "lastName",
    "email",
    "phone",
    "avatar",
    "locale",
    "timezone",
    "channels",
    "topics",
    "isOnline",
    "lastOnlineAt",
    "__v",
    "data",
    "_organizationId",
    "_environmentId",
    "deleted",
    "createdAt",
    "updatedAt",
  ],
  channelsettings: ["providerId", "integrationIdentifier", "_integrationId", "credentials"],
  channelcredentials: [
    "webhookUrl",
    "channel",
    "deviceTokens",
    "alertUid",
    "title",
    "imageUrl",
    "state",
    "externalUrl",
  ],
  notification: [
    "_id",
    "_environmentId",
    "_organizationId",
    "_subscriberId",
    "transactionId",
    "_templateId",
    "_digestedNotificationId",
    "createdAt",
    "updatedAt",
    "channels",
    "subscriber",
    "template",
    "jobs",
    "payload",
    "tags",
    "controls",
    "to",
    "topics",
    "severity",
    "critical",
    "contextKeys",
  ],
  notificationtemplate: ["_id", "name", "origin", "triggers"],
  notificationtrigger: ["type", "identifier", "variables", "subscriberVariables"],
  job: [
    "_id",
    "type",
    "providerId",
    "status",
    "updatedAt",
    "scheduleExtensionsCount",
    "payload",
    "overrides",
    "digest",
    "executionDetails",
    "step",
  ],
  digestmetadata: [
    "digestKey",
    "amount",
    "unit",
    "type",
    "events",
    "backoff",
    "backoffAmount",
    "backoffUnit",
    "updateMode",
    "timed",
  ],
  digesttimedconfig: [
    "atTime",
    "weekDays",
    "monthDays",
    "ordinal",
    "ordinalValue",
    "monthlyType",
    "cronExpression",
    "untilDate",
  ],
  executiondetail: ["_id", "createdAt", "status", "detail", "isRetry", "isTest", "providerId", "raw", "source"],
  step: [
    "_id",
    "active",
    "replyCallback",
    "controlVariables",
    "metadata",
    "issues",
    "filters",
    "template",
    "variants",
    "_templateId",
    "name",
    "_parentId",
  ],
  stepfilter: ["isNegated", "type", "value", "children"],
  filtercondition: ["field", "value", "operator", "on"],
};

let browser: Browser;
let page: Page;

async function open(route: string, waitFor: string): Promise<string> {
  await page.goto(`${docsUrl}${route}`);
  await page.getByText(waitFor, { exact: true }).first().waitFor({ timeout: 15_000 });
  // innerText (not textContent): the test reads what a person sees, one field per line.
  return page.innerText("main");
}

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // Prove the page is self-contained: anything but the file itself and inline data is refused.
  await page.route("**/*", (route) =>
    /^(file|data|blob):/.test(route.request().url()) ? route.continue() : route.abort(),
  );
});

afterAll(async () => {
  await browser?.close();
});

describe("the rendered docs (generated/docs/index.html, offline)", () => {
  it("open on the overview with the authentication section", async () => {
    const text = await open("", "Authentication");
    expect(text).toContain("Notification query API");
    expect(text).toContain("Authorization: ApiKey <key>");
    await page.screenshot({ path: `${screenshots}overview.png` });
  });

  it("show the servers' descriptions as they are written: Redoc renders them as plain text, not Markdown", () => {
    const bundled = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
    const descriptions = (bundled.servers as { description?: string }[]).map((server) => server.description ?? "");
    expect(descriptions.filter((text) => /[`*_[\]]/.test(text))).toEqual([]);
  });

  it("have a Changes section: one entry per release, newest first, one readable line per change", async () => {
    const text = await open("", "Authentication");
    const changes = text.slice(text.indexOf("One entry per release"));
    const entries = [...changes.matchAll(/^(\d+\.\d+\.\d+)( \([^)]*\))?$/gm)].map((match) => match[1] as string);
    expect(entries).toEqual([...entries].sort((a, b) => b.localeCompare(a, "en", { numeric: true })));
    expect(entries).toEqual(expect.arrayContaining(["0.2.0", "0.1.0"]));
    expect(changes).toContain(
      "Added the 503 Service Unavailable answer, on every operation. Clients: non-breaking; implementations: non-breaking.",
    );
    expect(changes).not.toMatch(/\b(add|remove) \d+\b/);
    expect(changes).toContain("Rules and JSON pointers");
  });

  it("show every line of the Changes section whole at 1,400 px: nothing is cut off or wider than its column", async () => {
    await open("", "Authentication");
    await page.getByText("Rules and JSON pointers").first().click();
    const overflowing = await page.evaluate(() => {
      // Redoc gives the Changes section and each release's entry a section of its own.
      const headings = Array.from(document.querySelectorAll('h2[id^="section/changes"]'));
      // Each heading sits in a wrapper of its own; its entry is the wrapper's parent.
      const sections = [...new Set(headings.map((heading) => heading.parentElement?.parentElement as Element))];
      const elements = sections.flatMap((section) =>
        Array.from(section.querySelectorAll("li, p, code, summary, h2")).map((element) => ({ element, section })),
      );
      if (elements.length < 10) return [`only ${elements.length} elements in the Changes section`];
      // Past the right edge of its entry (the middle column), or wider than itself (clipped), is cut off.
      return elements
        .filter(({ element, section }) => {
          const right = section.getBoundingClientRect().right;
          return element.getBoundingClientRect().right > right + 1 || element.scrollWidth > element.clientWidth + 1;
        })
        .map(({ element }) => element.textContent?.slice(0, 80) ?? "");
    });
    await page.screenshot({ path: `${screenshots}changes.png`, fullPage: false });
    expect(overflowing).toEqual([]);
  });

  it.each([
    ["#/subscribers/searchsubscribers", "Search subscribers", "/v2/subscribers"],
    ["#/subscribers/patchsubscriber", "Update a subscriber", "/v2/subscribers/{subscriberId}"],
    ["#/notifications/listnotifications", "List notifications", "/v1/notifications"],
    ["#/notifications/getnotification", "Get a notification", "/v1/notifications/{notificationId}"],
  ])("show the operation at %s", async (route, summary, path) => {
    const text = await open(route, summary);
    expect(text).toContain(summary);
    expect(text).toContain(path);
    expect(text).toContain("secretKey");
    await page.screenshot({ path: `${screenshots}${route.split("/").pop()}.png` });
  });

  it.each(Object.entries(seedFields))("list every seed field of the %s schema", async (schema, fields) => {
    const text = await open(`#/schemas/${schema}`, fields[0] as string);
    const lines = text.split("\n").map((line) => line.trim());
    for (const field of fields) expect(lines, `${schema}.${field}`).toContain(field);
  });
});
