/** The skeleton's admission control (express/admission.ts): turns, a bounded queue, and expensive turns of their own. */

import { describe, expect, it } from "vitest";
import { Admission, Limiter } from "../../express/admission.js";
import { gate } from "../support/gate.js";

describe("Limiter", () => {
  it("runs up to maxInFlight at once, queues up to maxQueue, refuses the next at once, and passes turns on", async () => {
    const limiter = new Limiter({ maxInFlight: 2, maxQueue: 1, maxWaitMs: 10_000 });
    const gates = [gate(), gate(), gate()];
    const order: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        order.push(i);
        await g.opened;
        return i;
      }),
    );
    await Promise.resolve();
    expect(limiter.load).toEqual({ inFlight: 2, queued: 1 });
    await expect(limiter.run(async () => "fourth")).rejects.toMatchObject({ status: 503 });
    gates[0]?.open();
    expect(await runs[0]).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual([0, 1, 2]);
    expect(limiter.load).toEqual({ inFlight: 2, queued: 0 });
    gates[1]?.open();
    gates[2]?.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(limiter.load).toEqual({ inFlight: 0, queued: 0 });
  });

  it("refuses a request that waited maxWaitMs, and gives the turn back when the work throws", async () => {
    const limiter = new Limiter({ maxInFlight: 1, maxQueue: 5, maxWaitMs: 30 });
    const held = gate();
    const first = limiter.run(() => held.opened);
    const began = Date.now();
    await expect(limiter.run(async () => "late")).rejects.toMatchObject({
      status: 503,
      headers: { "Retry-After": "1" },
    });
    expect(Date.now() - began).toBeGreaterThanOrEqual(25);
    expect(limiter.load).toEqual({ inFlight: 1, queued: 0 });
    held.open();
    await first;
    await expect(limiter.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(limiter.load).toEqual({ inFlight: 0, queued: 0 });
    expect(await limiter.run(async () => "again")).toBe("again");
  });
});

describe("Admission", () => {
  it("shares turns: an expensive request takes one of its own and one of all", async () => {
    const admission = new Admission({
      all: { maxInFlight: 3, maxQueue: 0, maxWaitMs: 100 },
      expensive: { maxInFlight: 1, maxQueue: 0, maxWaitMs: 100 },
    });
    const held = gate();
    const running = admission.run("expensive", () => held.opened);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(admission.all.load.inFlight).toBe(1);
    expect(admission.expensive.load.inFlight).toBe(1);
    await expect(admission.run("expensive", async () => 1)).rejects.toMatchObject({ status: 503 });
    expect(await admission.run("cheap", async () => 2)).toBe(2);
    held.open();
    await running;
    expect([admission.all.load.inFlight, admission.expensive.load.inFlight]).toEqual([0, 0]);
  });
});
