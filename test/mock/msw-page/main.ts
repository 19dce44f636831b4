/// <reference lib="dom" />
/**
 * A page as a frontend app would write it: MSW's service worker with the contract's handlers, the typed client
 * calling an API on another origin, each documented state rendered, and the shape-level conformance rules run in the
 * browser. Bundled with esbuild by `test/mock/msw-browser.test.ts`, which reads `window.result` and the page text.
 */
import { createClient } from "@novu-query/contract";
import { answer, handlers } from "@novu-query/contract/msw";
import { setupWorker } from "msw/browser";
import { runConformance } from "../../../conformance/run.js";
import { operationTable } from "../../../generated/operations.js";

const baseUrl = "https://api.example.com";
const worker = setupWorker(...handlers);
await worker.start({ quiet: true, onUnhandledRequest: "error", serviceWorker: { url: "/mockServiceWorker.js" } });
const api = createClient({ baseUrl, apiKey: "demo-key" });

function show(id: string, text: string): void {
  const item = document.createElement("li");
  item.id = id;
  item.textContent = text;
  document.querySelector("#states")?.append(item);
}

const list = await api.GET("/v1/notifications", { params: { query: { limit: 10 } } });
for (const notification of list.data?.data ?? []) show(`notification-${notification._id}`, notification.transactionId);

const errors: Record<string, string> = {};
for (const status of operationTable.listNotifications.statuses.filter((status) => status >= 400)) {
  worker.use(answer("listNotifications", status));
  const { error, response } = await api.GET("/v1/notifications");
  worker.resetHandlers();
  errors[response.status] = error?.message ?? "";
  show(`error-${response.status}`, `${response.status}: ${error?.message}`);
}
const invalid = await api.GET("/v1/notifications", { params: { query: { limit: 500 } } });
const report = await runConformance({ baseUrl, apiKey: "demo-key", level: "shape" });

Object.assign(window, {
  result: {
    controlled: navigator.serviceWorker.controller !== null,
    listStatus: list.response.status,
    transactionIds: (list.data?.data ?? []).map((notification) => notification.transactionId),
    errors,
    invalid: invalid.error && "errors" in invalid.error ? Object.keys(invalid.error.errors) : [],
    conformance: report.results.map(({ id, passed, reason }) => ({ id, passed, reason })),
  },
});
