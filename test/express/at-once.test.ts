/**
 * An operation's work and stored answer in one step of the store (`idempotency.atOnce`, handler-types.ts
 * `AtOnceHandler`): what each of its results is answered as, the same as a session's (409 while held, a replay or 422
 * for a stored answer), the store told of what it stored, an undeclared status still a 500, and the session run where
 * the step answers `undefined`.
 */
import type { AddressInfo } from "node:net";
import { createFactories } from "@novu-query/contract/factories";
import {
  type AtOnceHandler,
  type AtOnceResult,
  type AuthContext,
  createApp,
  createHttpServer,
  type Handlers,
  handler,
  type IdempotentCall,
  MemoryIdempotencyStore,
} from "@novu-query/express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const subscriber = createFactories({ seed: 11 }).subscriber({ subscriberId: "sub-1" });

class CountingStore extends MemoryIdempotencyStore {
  readonly told: { scope: string; bytes: number }[] = [];
  async saved(scope: string, bytes: number): Promise<void> {
    this.told.push({ scope, bytes });
  }
}

describe("an operation answered at once", () => {
  const store = new CountingStore();
  let sessionRuns = 0;
  const calls: IdempotentCall[] = [];
  /** What the step answers, by the subscriberId in the path. */
  const script: Record<string, (call: IdempotentCall) => AtOnceResult<"patchSubscriber"> | undefined> = {
    ran: () => ({ held: false, ran: { status: 200, body: subscriber }, storedBytes: 123 }),
    held: () => ({ held: true }),
    stored: (call) => ({
      held: false,
      stored: { fingerprint: call.fingerprint, statusCode: 200, body: '{"stored": "as it was"}' },
    }),
    other: () => ({ held: false, stored: { fingerprint: "another request", statusCode: 200, body: "{}" } }),
    absent: () => undefined,
    undeclared: () => ({ held: false, ran: { status: 299 as 200, body: subscriber }, storedBytes: 1 }),
  };
  const atOnce: AtOnceHandler<"patchSubscriber"> = async ({ path }, _context, call) => {
    calls.push(call);
    return script[path.subscriberId]?.(call);
  };
  const handlers: Partial<Handlers> = {
    patchSubscriber: handler("patchSubscriber", async () => {
      sessionRuns++;
      return { status: 200, body: subscriber };
    }),
  };
  const errors: unknown[] = [];
  let base = "";
  let close = () => {};

  beforeAll(async () => {
    const app = createApp({
      handlers,
      services: () => ({}) as never,
      logger: {
        info() {},
        warn() {},
        error(entry: unknown) {
          errors.push(entry);
        },
      },
      authenticate: () => ({ environmentId: "e".repeat(24) }) as unknown as AuthContext,
      idempotency: { store, ttlSeconds: 600, atOnce: { patchSubscriber: atOnce } },
    });
    const server = createHttpServer(app).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    close = () => server.close();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => close());

  const send = (subscriberId: string, key?: string) =>
    fetch(`${base}/v2/subscribers/${subscriberId}`, {
      method: "PATCH",
      headers: {
        authorization: "ApiKey k",
        "content-type": "application/json",
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
      body: JSON.stringify({ firstName: "Ada" }),
    });

  it("answers what the step ran, tells the store what it stored, and runs no session", async () => {
    const runs = sessionRuns;
    const response = await send("ran", "k-ran");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(subscriber);
    expect(response.headers.get("idempotency-key")).toBe("k-ran");
    expect(sessionRuns).toBe(runs);
    expect(store.told).toContainEqual({ scope: "e".repeat(24), bytes: 123 });
    expect(calls.at(-1)).toMatchObject({ key: "k-ran", ttlSeconds: 600 });
    expect(calls.at(-1)?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("answers a held key 409, a stored answer of the same request as its replay, of another 422", async () => {
    const held = await send("held", "k-held");
    expect(held.status).toBe(409);
    expect(held.headers.get("retry-after")).toBe("1");
    const replay = await send("stored", "k-stored");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(await replay.text()).toBe('{"stored": "as it was"}');
    const reused = await send("other", "k-other");
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ statusCode: 422 });
  });

  it("runs the session where the step answers undefined, and there only", async () => {
    const runs = sessionRuns;
    const first = await send("absent", "k-absent");
    expect(first.status).toBe(200);
    expect(sessionRuns).toBe(runs + 1);
    // Without a key no step is tried: the handler runs as it is.
    const before = calls.length;
    expect((await send("ran")).status).toBe(200);
    expect(calls.length).toBe(before);
    expect(sessionRuns).toBe(runs + 2);
  });

  it("holds what the step ran to the operation's statuses: an undeclared one is a 500", async () => {
    const response = await send("undeclared", "k-undeclared");
    expect(response.status).toBe(500);
    const logged = (errors.at(-1) as { err?: Error } | undefined)?.err;
    expect(logged?.name).toBe("UndeclaredStatusError");
    expect(logged?.message).toContain("answered 299, which the spec does not declare");
  });
});
