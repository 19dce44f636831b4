/**
 * The worker thread of `npm run bench:data` (bench/batch-thread.ts): generates the demo data and builds its batches'
 * text, one batch for each request, so that the loader's own thread only sends them. The same generator and the same
 * batch text as a load on one thread (server/demo/load.ts, `preparedBatches`): the rows are the same bytes.
 */
import { parentPort, workerData } from "node:worker_threads";
import { demoEnvironments } from "../server/demo/generate.js";
import { preparedBatches } from "../server/demo/load.js";
import type { DemoOptions } from "../server/demo/options.js";

const { demo, batchSize } = workerData as { demo: DemoOptions; batchSize: number };
const port = parentPort;
if (!port) throw new Error("bench/batch-worker.ts runs as a worker thread");
const prepared = preparedBatches(demoEnvironments(demo), batchSize);
port.on("message", () => {
  const next = prepared.next();
  port.postMessage(next.done ? null : next.value);
});
