/**
 * Every statement of a node-postgres pool run through its callback form, the promise made here (D77).
 *
 * `client.query(text, values)` without a callback (how Kysely calls it) makes its Query with no callback and gives it
 * one just after, inside the promise it returns (pg's client.js). Measured, that is the difference: a Query whose
 * `callback` is set after it was made has everything its statement read outlive the young generation's collections
 * (its rows' strings, the Query, the promise and their closures are copied once, then moved to the old generation,
 * where only the next full collection frees them); why V8 keeps them is not established. On Node 24 and Node 20 with
 * node-postgres alone (16 loops of a lookup of one 3 kB notification): a Query given its callback when made, 0.6% of
 * the young generation surviving each collection, none of it promoted, 0.2-2 ms pauses on a 4 MB young generation;
 * the same statement through the promise form, 30-45% surviving, 3-6 MB promoted per collection, and the young
 * generation grown to 64 MB with pauses of 2-10 ms. In the server under a closed loop of lists, 13 MB was promoted
 * every ~0.13 s (about 40 kB a request).
 *
 * Calls with a callback, and submittables (pg-cursor, a Query made by the caller), go through unchanged.
 */
import type pg from "pg";

type Callback = (error: Error | null, result: unknown) => void;
type QueryFunction = (...args: unknown[]) => unknown;

/** Whether node-postgres runs this call's statement itself and answers through a callback it was given. */
function hasCallbackOrSubmits(args: unknown[]): boolean {
  const first = args[0] as { submit?: unknown } | null | undefined;
  return typeof args[args.length - 1] === "function" || typeof first?.submit === "function";
}

/** Makes `client.query` in its promise form pass a callback to node-postgres and answer with a promise of its own. */
export function queryThroughCallback(client: pg.ClientBase): void {
  const query = client.query.bind(client) as QueryFunction;
  client.query = ((...args: unknown[]) => {
    if (hasCallbackOrSubmits(args)) return query(...args);
    return new Promise((resolve, reject) => {
      const answered: Callback = (error, result) => (error ? reject(error) : resolve(result));
      query(...args, answered);
    }).catch((error: unknown) => {
      // As node-postgres's promise form does: the error's stack leads back to the caller's awaits, not to the socket.
      if (error instanceof Error) Error.captureStackTrace(error);
      throw error;
    });
  }) as pg.ClientBase["query"];
}

/** Every client the pool connects runs its statements through their callback form (before any other wrapper). */
export function queriesThroughCallbacks(pool: pg.Pool): pg.Pool {
  pool.on("connect", queryThroughCallback);
  return pool;
}
