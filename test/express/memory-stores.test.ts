/** The skeleton's in-process stores: token buckets (memory-rate-limit.ts) and idempotent answers (memory-idempotency.ts). */
import { MemoryIdempotencyStore, MemoryRateLimitStore, type StoredAnswer } from "@novu-query/express";
import { describe, expect, it } from "vitest";
import { decide } from "../../express/rate-limit.js";
import { gate } from "../support/gate.js";

describe("MemoryRateLimitStore", () => {
  it("refills at the per-minute rate up to the burst", () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ now: () => now });
    const limits = { perMinute: 60, burst: 2 };
    const take = () => decide(store.take("k", limits), limits);
    expect([take().allowed, take().allowed, take().allowed]).toEqual([true, true, false]);
    expect(take().retryAfterSeconds).toBe(1);
    now += 1000;
    expect(take()).toMatchObject({ allowed: true, remaining: 0 });
    now += 60_000;
    expect(take()).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 1 });
  });

  it("forgets the least recently used keys past their capacity", () => {
    const store = new MemoryRateLimitStore({ now: () => 0, maxKeys: 2 });
    const limits = { perMinute: 60, burst: 1 };
    store.take("a", limits);
    store.take("b", limits);
    store.take("c", limits);
    expect(store.take("a", limits).allowed).toBe(true);
    expect(store.take("c", limits).allowed).toBe(false);
  });
});

describe("MemoryIdempotencyStore", () => {
  const answer: StoredAnswer = { fingerprint: "f", statusCode: 200, body: "{}" };

  it("gives a key to one session at a time, and back when the session ends", async () => {
    const store = new MemoryIdempotencyStore();
    const { opened: holding, open: release } = gate();
    const first = store.session("env", "k", async (session) => {
      expect(await session.claim()).toBe(true);
      await holding;
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await store.session("env", "k", (session) => session.claim())).toBe(false);
    expect(await store.session("other-env", "k", (session) => session.claim())).toBe(true);
    release();
    await first;
    expect(await store.session("env", "k", (session) => session.claim())).toBe(true);
  });

  it("keeps what a session saved only when its work went through, until it expires", async () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ now: () => now });
    await expect(
      store.session("env", "failed", async (session) => {
        await session.save(answer, 60);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await store.session("env", "failed", (session) => session.find())).toBeUndefined();
    await store.session("env", "kept", (session) => session.save(answer, 60));
    expect(await store.session("env", "kept", (session) => session.find())).toEqual(answer);
    now += 60_000;
    expect(await store.session("env", "kept", (session) => session.find())).toBeUndefined();
  });

  it("forgets the oldest answers past its capacity", async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2 });
    for (const key of ["a", "b", "c"]) await store.session("env", key, (session) => session.save(answer, 60));
    const found = await Promise.all(["a", "b", "c"].map((key) => store.session("env", key, (s) => s.find())));
    expect(found).toEqual([undefined, answer, answer]);
  });
});
