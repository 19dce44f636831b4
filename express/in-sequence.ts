/**
 * `inSequence(steps)`: middlewares run one after another as one middleware, as an Express router runs the layers it
 * matches, without its per-layer path matching (and the prefix it trims and restores for each), for steps that all
 * apply to every request that reaches them (D74).
 */
import type { RequestHandler } from "express";

/**
 * Each step calls the next; an error, passed on, thrown or the rejection of the promise a step returns (as Express 5
 * takes them), skips the steps left and goes to the sequence's own `next`, which the last step's `next()` calls too.
 */
export function inSequence(steps: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      const step = steps[index++];
      if (step === undefined) {
        done();
        return;
      }
      try {
        const returned: unknown = step(req, res, next);
        if (returned instanceof Promise)
          returned.then(undefined, (error) => done(error ?? new Error("Rejected promise")));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
