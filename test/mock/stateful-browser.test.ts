import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../scripts/processes.js";
import { launchBrowser, type Site, serveSite } from "../support/browser.js";
import { outputMatching } from "../support/output.js";

/** A page on its own origin that reads, filters and patches through the API at `api` with `key`, as an app would. */
function page(api: string, key: string): string {
  return `<!doctype html><title>app</title><script type="module">
const api = ${JSON.stringify(api)};
const auth = { Authorization: "ApiKey ${key}" };
try {
  const list = await fetch(api + "/v1/notifications?channels=email&limit=5", { headers: auth });
  const notifications = await list.json();
  const search = await fetch(api + "/v2/subscribers?limit=1", { headers: { ...auth, Prefer: "code=200" } });
  const subscriber = (await search.json()).data[0];
  const patch = await fetch(api + "/v2/subscribers/" + encodeURIComponent(subscriber.subscriberId), {
    method: "PATCH",
    headers: { ...auth, "Content-Type": "application/json", "idempotency-key": "browser-1" },
    body: JSON.stringify({ locale: "en_US" }),
  });
  const patched = await patch.json();
  const again = await fetch(api + "/v2/subscribers?subscriberId=" + encodeURIComponent(subscriber.subscriberId), { headers: auth });
  window.result = {
    listStatus: list.status,
    channels: notifications.data.map((n) => n.channels),
    requestId: list.headers.get("x-request-id"),
    patchStatus: patch.status,
    idempotencyKey: patch.headers.get("idempotency-key"),
    locale: patched.locale,
    stored: (await again.json()).data[0].locale,
  };
} catch (error) {
  window.result = { error: String(error) };
}
</script>`;
}

describe("the stateful mock (npx @novu-query/server mock) from a page on another origin", () => {
  let mock: ServerProcess;
  let site: Site;
  let browser: Browser;

  beforeAll(async () => {
    mock = await startServerProcess({ DEMO_SUBSCRIBERS: "60", DEMO_NOTIFICATIONS: "150" }, ["mock"]);
    const html = page(mock.baseUrl, mock.keys.Production ?? "");
    site = await serveSite({ "/": ["text/html", html] });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await mock?.stop();
  });

  it("prints its origin policy", async () => {
    // In the banner, which may arrive after the ready line the start waited for.
    await outputMatching(mock, "Origins    any (CORS for every origin)");
  });

  it("reads, filters and patches with its default settings, and lets the page read its headers", async () => {
    expect(new URL(site.url).origin).not.toBe(new URL(mock.baseUrl).origin);
    const tab = await browser.newPage();
    const refused: string[] = [];
    tab.on("console", (message) => {
      if (message.type() === "error") refused.push(message.text());
    });
    await tab.goto(site.url);
    await tab.waitForFunction(() => (globalThis as unknown as { result?: unknown }).result !== undefined);
    const result = await tab.evaluate(() => (globalThis as unknown as { result: Record<string, unknown> }).result);
    expect(refused).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.listStatus).toBe(200);
    expect((result.channels as string[][]).length).toBeGreaterThan(0);
    for (const channels of result.channels as string[][]) expect(channels).toContain("email");
    expect(result.requestId).toMatch(/.+/);
    expect(result.patchStatus).toBe(200);
    expect(result.idempotencyKey).toBe("browser-1");
    expect(result.locale).toBe("en_US");
    expect(result.stored).toBe("en_US");
  });
});
