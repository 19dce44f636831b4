import type { Request, RequestHandler, Response } from "express";
import { describe, expect, it } from "vitest";
import { inSequence } from "../../express/in-sequence.js";

/** Runs a sequence on a dummy request; resolves with what reached its own `next`, and the steps that ran. */
function run(steps: (ran: string[]) => RequestHandler[]): Promise<{ ran: string[]; passed: unknown }> {
  const ran: string[] = [];
  return new Promise((resolve) => {
    inSequence(steps(ran))({} as Request, {} as Response, (passed?: unknown) => resolve({ ran, passed }));
  });
}

const step =
  (name: string): ((ran: string[]) => RequestHandler) =>
  (ran) =>
  (_req, _res, next) => {
    ran.push(name);
    next();
  };

describe("inSequence: middlewares run as one (D74)", () => {
  it("runs each step in order, then passes on with nothing", async () => {
    expect(await run((ran) => [step("a")(ran), step("b")(ran), step("c")(ran)])).toEqual({
      ran: ["a", "b", "c"],
      passed: undefined,
    });
    expect(await run(() => [])).toEqual({ ran: [], passed: undefined });
  });

  it("passes a step's error on and runs no step after it", async () => {
    const error = new Error("refused");
    const refuse: RequestHandler = (_req, _res, next) => next(error);
    expect(await run((ran) => [step("a")(ran), refuse, step("c")(ran)])).toEqual({ ran: ["a"], passed: error });
  });

  it("passes on what a step throws, and the rejection of the promise it returns, as Express does", async () => {
    const error = new Error("thrown");
    const throws: RequestHandler = () => {
      throw error;
    };
    expect(await run((ran) => [throws, step("b")(ran)])).toEqual({ ran: [], passed: error });
    const rejects = (async () => {
      throw error;
    }) as unknown as RequestHandler;
    expect(await run((ran) => [rejects, step("b")(ran)])).toEqual({ ran: [], passed: error });
  });
});
