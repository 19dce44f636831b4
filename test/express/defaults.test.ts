/**
 * What the skeleton does by default, through HTTP: idempotency keys scoped to the caller's environment (as the spec
 * says), a handler's answer that breaks the contract logged with the operation and the field it got wrong, and an
 * answer handed over as JSON text (`serialized`) sent as it is, or checked like any other where answers are validated.
 */
import type { AddressInfo } from "node:net";
import { createFactories } from "@novu-query/contract/factories";
import {
  type AppOptions,
  type AuthContext,
  createApp,
  createHttpServer,
  type Handlers,
  handler,
  type Logger,
  MemoryIdempotencyStore,
  type Subscriber,
  serialized,
} from "@novu-query/express";
import { afterEach, describe, expect, it } from "vitest";

const make = createFactories({ seed: 3 });
const subscriber = make.subscriber({ subscriberId: "sub-1" });

/** An environment as this repository's AuthContext has it (the reference server's fields). */
function environment(environmentId: string): AuthContext {
  return { environmentId, organizationId: "0".repeat(24), name: environmentId, retentionDays: null } as AuthContext;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(options: Partial<AppOptions> & Pick<AppOptions, "handlers" | "authenticate">): Promise<string> {
  const app = createApp({ services: () => ({}) as never, ...options } as AppOptions);
  const server = createHttpServer(app).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recordingLogger(): Logger & { lines: { fields: object; message: string }[] } {
  const lines: { fields: object; message: string }[] = [];
  const record = (fields: object, message: string) => void lines.push({ fields, message });
  return { lines, info: record, warn: record, error: record };
}

describe("idempotency keys, by default", () => {
  const keys: Record<string, AuthContext | undefined> = {
    "key-a": environment("env-1"),
    "key-b": environment("env-1"),
    "key-c": environment("env-2"),
  };
  let applied = 0;
  const handlers: Partial<Handlers> = {
    patchSubscriber: handler("patchSubscriber", async ({ body }) => {
      applied += 1;
      return { status: 200, body: { ...subscriber, firstName: body.firstName ?? null } };
    }),
  };
  const patch = (baseUrl: string, apiKey: string) =>
    fetch(`${baseUrl}/v2/subscribers/sub-1`, {
      method: "PATCH",
      headers: { authorization: `ApiKey ${apiKey}`, "content-type": "application/json", "idempotency-key": "k-1" },
      body: JSON.stringify({ firstName: "Ada" }),
    });

  it("are scoped to the caller's environment: two keys of one environment share them, another's do not", async () => {
    applied = 0;
    const baseUrl = await serve({
      handlers,
      authenticate: ({ apiKey }) => keys[apiKey],
      idempotency: { store: new MemoryIdempotencyStore() },
    });
    expect((await patch(baseUrl, "key-a")).headers.get("idempotency-replay")).toBeNull();
    const sameEnvironment = await patch(baseUrl, "key-b");
    expect(sameEnvironment.headers.get("idempotency-replay")).toBe("true");
    const otherEnvironment = await patch(baseUrl, "key-c");
    expect(otherEnvironment.headers.get("idempotency-replay")).toBeNull();
    expect(applied).toBe(2);
  });

  it("follow `scope` when one is given (per API key here)", async () => {
    applied = 0;
    const baseUrl = await serve({
      handlers,
      authenticate: ({ apiKey }) => keys[apiKey],
      idempotency: { store: new MemoryIdempotencyStore(), scope: (caller) => caller.keyHash },
    });
    await patch(baseUrl, "key-a");
    expect((await patch(baseUrl, "key-b")).headers.get("idempotency-replay")).toBeNull();
    expect(applied).toBe(2);
  });

  it("refuse to guess when authenticate says no environment and no scope is given: 500, logged saying what to do", async () => {
    const logger = recordingLogger();
    const baseUrl = await serve({
      handlers,
      logger,
      authenticate: () => ({}) as AuthContext,
      idempotency: { store: new MemoryIdempotencyStore() },
    });
    const response = await patch(baseUrl, "key-a");
    expect(response.status).toBe(500);
    const logged = logger.lines.map((line) => String((line.fields as { err?: unknown }).err));
    expect(logged.join("\n")).toContain("authenticate returned no environmentId: return it, or pass idempotency.scope");
  });
});

describe("a handler's input", () => {
  it("has the request's headers, but not the caller's key", async () => {
    let seen: Record<string, unknown> = {};
    const baseUrl = await serve({
      authenticate: () => environment("env-1"),
      handlers: {
        getNotification: handler("getNotification", async ({ headers }, { errors }) => {
          seen = { ...headers };
          throw errors.notFound("Notification not found");
        }),
      },
    });
    await fetch(`${baseUrl}/v1/notifications/${"a".repeat(24)}`, {
      headers: { authorization: "ApiKey secret-key", "x-request-id": "r-1" },
    });
    expect(seen["x-request-id"]).toBe("r-1");
    expect(seen).not.toHaveProperty("authorization");
  });
});

describe("an answer that breaks the contract", () => {
  it("is logged with the operation and each field it got wrong, and answered 500", async () => {
    const logger = recordingLogger();
    const { createdAt: _createdAt, ...withoutCreatedAt } = subscriber;
    const baseUrl = await serve({
      logger,
      validateResponses: true,
      authenticate: () => environment("env-1"),
      handlers: {
        // A cast gets past the types, as a hand-built object from an untyped source would.
        searchSubscribers: handler("searchSubscribers", async () => ({
          status: 200,
          body: {
            data: [{ ...withoutCreatedAt, secret: "s3cr3t" } as never],
            next: null,
            previous: null,
            totalCount: 1,
            totalCountCapped: false,
          },
        })),
      },
    });
    const response = await fetch(`${baseUrl}/v2/subscribers`, { headers: { authorization: "ApiKey any" } });
    expect(response.status).toBe(500);
    const { errorId } = (await response.json()) as { errorId: string };
    const line = logger.lines.find((entry) => (entry.fields as { errorId?: string }).errorId === errorId);
    expect(line?.message).toBe(
      "the searchSubscribers handler's answer does not match the contract: body.data[0].createdAt is required by the contract and missing; body.data[0].secret is not in the contract",
    );
    expect(line?.fields).toMatchObject({ operation: "searchSubscribers" });
  });
});

describe("an answer handed over as JSON text (serialized)", () => {
  // Spaces and a key order JSON.stringify would not give: what is sent shows whether the text was parsed again.
  const text = JSON.stringify({ ...subscriber, firstName: "Ada" }, null, 1);
  const patchWith = (body: string) =>
    handler("patchSubscriber", async () => ({ status: 200, body: serialized<Subscriber>(body) }));
  const send = (baseUrl: string, key?: string) =>
    fetch(`${baseUrl}/v2/subscribers/sub-1`, {
      method: "PATCH",
      headers: {
        authorization: "ApiKey any",
        "content-type": "application/json",
        ...(key && { "idempotency-key": key }),
      },
      body: JSON.stringify({ firstName: "Ada" }),
    });

  it("is sent as it is where answers are not validated, replayed the same, typed as JSON", async () => {
    const baseUrl = await serve({
      validateResponses: false,
      authenticate: () => environment("env-1"),
      handlers: { patchSubscriber: patchWith(text) },
      idempotency: { store: new MemoryIdempotencyStore() },
    });
    const response = await send(baseUrl, "k-1");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.text()).toBe(text);
    const replay = await send(baseUrl, "k-1");
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(await replay.json()).toEqual(JSON.parse(text));
  });

  it("in pieces, is sent as their concatenation, byte for byte, multi-byte characters and all; replayed the same", async () => {
    // A name of characters of two, three and four bytes in UTF-8, cut into pieces between and inside its words.
    const named = JSON.stringify({ ...subscriber, firstName: "Zoë 名前 🙂 end" }, null, 1);
    const pieces = [named.slice(0, 7), "", ...named.slice(7).split(/(?<=ë|前)/)];
    expect(pieces.join("")).toBe(named);
    const baseUrl = await serve({
      validateResponses: false,
      authenticate: () => environment("env-1"),
      handlers: {
        patchSubscriber: handler("patchSubscriber", async () => ({
          status: 200,
          body: serialized<Subscriber>(pieces),
        })),
      },
      idempotency: { store: new MemoryIdempotencyStore() },
    });
    const response = await send(baseUrl, "k-2");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(named)));
    expect(await response.text()).toBe(named);
    const replay = await send(baseUrl, "k-2");
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(await replay.text()).toBe(named);
  });

  it("is parsed and checked against the spec where answers are validated: a wrong one is answered 500", async () => {
    const good = await serve({
      validateResponses: true,
      authenticate: () => environment("env-1"),
      handlers: { patchSubscriber: patchWith(text) },
    });
    const response = await send(good);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(JSON.stringify(JSON.parse(text)));
    const { createdAt: _createdAt, ...withoutCreatedAt } = subscriber;
    const logger = recordingLogger();
    const bad = await serve({
      logger,
      validateResponses: true,
      authenticate: () => environment("env-1"),
      handlers: { patchSubscriber: patchWith(JSON.stringify(withoutCreatedAt)) },
    });
    expect((await send(bad)).status).toBe(500);
    expect(logger.lines.map((line) => line.message).join("\n")).toContain("body.createdAt is required by the contract");
  });
});
