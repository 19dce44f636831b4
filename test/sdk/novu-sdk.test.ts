import { Novu } from "@novu/api";
import { ErrorDto, ValidationErrorDto } from "@novu/api/models/errors/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismProcess } from "../../mock/prism.js";
import { startMock } from "../../scripts/processes.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** The official SDK with retries off, so that an error answer reaches the test at once. */
function sdk(serverURL: string, secretKey: string) {
  return new Novu({ serverURL, secretKey, retryConfig: { strategy: "none" } });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("the official Novu SDK against the reference server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite" });
  });
  afterAll(() => server?.close());

  it("searches subscribers and parses every field", async () => {
    const novu = sdk(server.baseUrl, server.production.apiKey);
    const first = await novu.subscribers.search({ limit: 5, orderBy: "createdAt", orderDirection: "ASC" });
    expect(first.result.data).toHaveLength(5);
    expect(first.result.data[0]?.environmentId).toBe(server.production.environmentId);
    expect(first.result.totalCount).toBeGreaterThan(5);
    const next = await novu.subscribers.search({
      limit: 5,
      orderBy: "createdAt",
      orderDirection: "ASC",
      after: first.result.next ?? "",
    });
    expect(next.result.previous).toBe(next.result.data[0]?.id);
    const everyone = await novu.subscribers.search({ limit: 100 });
    expect(everyone.result.data.some((s) => s.channels && s.channels.length > 0)).toBe(true);
  });

  it("patches a subscriber and parses the answer", async () => {
    const novu = sdk(server.baseUrl, server.production.apiKey);
    const target = server.production.subscribers.find((s) => !s.deleted);
    if (!target) throw new Error("no subscriber");
    const patched = await novu.subscribers.patch({ firstName: "Grace", data: { plan: "sdk" } }, target.subscriber_id);
    expect(patched.result).toMatchObject({
      subscriberId: target.subscriber_id,
      firstName: "Grace",
      data: { plan: "sdk" },
    });
    expect(patched.result.v).toBe(target.version + 1);
  });

  it("lists notifications with repeated-key array filters and parses jobs, digests and steps", async () => {
    const novu = sdk(server.baseUrl, server.production.apiKey);
    const page = await novu.notifications.list({ channels: ["email", "sms"], severity: ["high", "none"], limit: 50 });
    expect(page.result.data.length).toBeGreaterThan(0);
    for (const item of page.result.data) expect(item.channels?.some((c) => c === "email" || c === "sms")).toBe(true);
    const everything = await novu.notifications.list({ limit: 50 });
    expect(everything.result.data.flatMap((n) => n.jobs ?? []).some((job) => job.digest !== undefined)).toBe(true);
  });

  it("retrieves one notification", async () => {
    const novu = sdk(server.baseUrl, server.production.apiKey);
    const listed = await novu.notifications.list({ limit: 1 });
    const id = listed.result.data[0]?.id as string;
    const one = await novu.notifications.retrieve(id);
    expect(one.result).toEqual(listed.result.data[0]);
  });

  it("parses 401 and 404 as ErrorDto and 422 as ValidationErrorDto", async () => {
    const unauthorized = await rejection(sdk(server.baseUrl, "0".repeat(32)).notifications.list({}));
    expect(unauthorized).toBeInstanceOf(ErrorDto);
    expect((unauthorized as ErrorDto).statusCode).toBe(401);
    expect((unauthorized as ErrorDto).data$.message).toBe("API Key not found");

    const novu = sdk(server.baseUrl, server.production.apiKey);
    const missing = await rejection(novu.notifications.retrieve("ffffffffffffffffffffffff"));
    expect(missing).toBeInstanceOf(ErrorDto);
    expect((missing as ErrorDto).data$).toMatchObject({ statusCode: 404, message: "Notification not found" });
    const noSubscriber = await rejection(novu.subscribers.patch({ firstName: "X" }, "nobody-at-all"));
    expect((noSubscriber as ErrorDto).data$.message).toBe("Subscriber nobody-at-all was not found");

    const invalid = await rejection(novu.subscribers.search({ limit: 1000 }));
    expect(invalid).toBeInstanceOf(ValidationErrorDto);
    expect((invalid as ValidationErrorDto).data$.errors["query.limit"]?.messages).toEqual(["Must be at most 100"]);
    // Novu's own SDK tests assert `error.ctx` on every validation error (its exception filter sends `ctx: {}`).
    expect((invalid as ValidationErrorDto).ctx).toEqual({});
    const badId = await rejection(novu.notifications.retrieve("nope"));
    expect(badId).toBeInstanceOf(ValidationErrorDto);
    expect((badId as ValidationErrorDto).ctx).toEqual({});
  });
});

describe("the official Novu SDK against the Prism mock", () => {
  let mock: PrismProcess;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock?.stop());

  it("parses every success example", async () => {
    const novu = sdk(mock.url, "any-key");
    const search = await novu.subscribers.search({ limit: 10 });
    expect(search.result.data[1]?.subscriberId).toBe("user-8421");
    const patched = await novu.subscribers.patch({ firstName: "Maya" }, "user-8421");
    expect(patched.result.channels?.[0]?.providerId).toBe("slack");
    const list = await novu.notifications.list({ limit: 2 });
    expect(list.result.data[0]?.jobs?.[0]?.digest?.type).toBe("regular");
    const one = await novu.notifications.retrieve("66b7e1d0c3a2b1f0e9d8c7b6");
    expect(one.result.jobs?.[1]?.step.filters[0]?.children[1]?.operator).toBe("LARGER");
  });

  it("parses the mock's 401 and 422 answers", async () => {
    const missingKey = new Novu({ serverURL: mock.url, retryConfig: { strategy: "none" } });
    const unauthorized = await rejection(missingKey.notifications.list({}));
    expect(unauthorized).toBeInstanceOf(ErrorDto);
    expect((unauthorized as ErrorDto).statusCode).toBe(401);
    const invalid = await rejection(sdk(mock.url, "any-key").subscribers.search({ limit: 1000 }));
    expect(invalid).toBeInstanceOf(ValidationErrorDto);
    expect((invalid as ValidationErrorDto).ctx).toEqual({});
  });

  it.each([400, 401, 404, 409, 413, 415, 422, 429, 500])("parses the mock's %i example for PATCH", async (code) => {
    const novu = sdk(mock.url, "any-key");
    const error = await rejection(
      novu.subscribers.patch({ firstName: "Maya" }, "user-8421", undefined, {
        fetchOptions: { headers: { Prefer: `code=${code}` } },
      }),
    );
    if (code === 429) {
      expect((error as Error).message).toMatch(/429/);
      return;
    }
    expect(error).toBeInstanceOf(code === 422 ? ValidationErrorDto : ErrorDto);
    expect((error as ErrorDto).data$.statusCode).toBe(code);
  });
});
