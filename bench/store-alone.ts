/**
 * The "PostgreSQL alone" column of the throughput table: what an operation's database work does with no HTTP around
 * it. The store's own calls for the operation (the same statements, over a pool of the server's size and settings)
 * from as many concurrent loops as the HTTP runs have connections, each starting its next call when one answers; with
 * each successful call's time.
 */
import type { Store } from "../server/store/store.js";

export async function storeClosedLoop(
  store: Store,
  work: (store: Store, i: number) => Promise<unknown>,
  options: { connections: number; seconds: number },
): Promise<{ requestsPerSecond: number; errors: number; latenciesMs: number[] }> {
  const until = performance.now() + options.seconds * 1000;
  let next = 0;
  let done = 0;
  let errors = 0;
  const latenciesMs: number[] = [];
  const loop = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      try {
        await work(store, next++);
        latenciesMs.push(performance.now() - started);
        done++;
      } catch {
        errors++;
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: options.connections }, loop));
  return { requestsPerSecond: done / ((performance.now() - began) / 1000), errors, latenciesMs };
}
