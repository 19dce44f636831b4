/**
 * The demo data's batches built on a worker thread (bench/batch-worker.ts) for `npm run bench:data`. On one thread the
 * loader spent about 115 µs of its CPU a notification (generating it, building its answer's JSON, the batch's text and
 * their garbage) against PostgreSQL's 70-100, so the notifications went at the pace of that one thread with a core's
 * worth of the machine idle; here the worker builds while this thread sends (D64).
 */
import { Worker } from "node:worker_threads";
import type { PreparedBatch } from "../server/demo/load.js";
import type { DemoOptions } from "../server/demo/options.js";
import { threadModule } from "../server/thread-module.js";

/** How many batches the worker builds ahead of the one being sent: enough to never leave the connection waiting. */
const ahead = 2;

/** The load's batches, in order, from a worker thread; it stops when they end, when the reader stops, or on error. */
export async function* batchesOnWorkerThread(demo: DemoOptions, batchSize: number): AsyncGenerator<PreparedBatch> {
  const worker = new Worker(await threadModule(import.meta.url, "batch-worker"), { workerData: { demo, batchSize } });
  const answers: { resolve: (batch: PreparedBatch | null) => void; reject: (error: unknown) => void }[] = [];
  let failure: unknown;
  worker.on("message", (batch: PreparedBatch | null) => answers.shift()?.resolve(batch));
  const fail = (error: unknown) => {
    failure ??= error;
    for (const answer of answers.splice(0)) answer.reject(failure);
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the batch worker exited (code ${code}) before the last batch`)));
  const request = () => {
    const answer = new Promise<PreparedBatch | null>((resolve, reject) => {
      if (failure !== undefined) return reject(failure);
      answers.push({ resolve, reject });
      worker.postMessage("next");
    });
    // A request past the one that failed is never awaited: marked as handled here, its failure is the first one's.
    answer.catch(() => {});
    return answer;
  };
  try {
    const requested = Array.from({ length: ahead }, request);
    for (;;) {
      const batch = await (requested.shift() as Promise<PreparedBatch | null>);
      if (batch === null) return;
      requested.push(request());
      yield batch;
    }
  } finally {
    worker.removeAllListeners("exit");
    await worker.terminate();
  }
}
