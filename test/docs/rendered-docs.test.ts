import { mkdirSync } from "node:fs";
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

  it("have a Changes section: the diff against the previous release", async () => {
    const text = await open("", "Authentication");
    expect(text).toContain("Changes");
    expect(text).toContain("What changed since 0.1.0");
    expect(text).toContain("add 503");
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
