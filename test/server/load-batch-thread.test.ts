/**
 * `npm run bench:data` builds the load's batches on a worker thread (bench/batch-thread.ts, D64): the same batches, in
 * the same order and to the same bytes, as the loader builds on its own thread, and a failure there fails the load.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { batchesOnWorkerThread } from "../../bench/batch-thread.js";
import { demoEnvironments } from "../../server/demo/generate.js";
import { loadDemo, type PreparedBatch, preparedBatches } from "../../server/demo/load.js";
import { defaultDemoOptions } from "../../server/demo/options.js";
import { openStore } from "../../server/store/store.js";

const demo = { ...defaultDemoOptions, subscribers: 130, notifications: 410 };

async function collect(batches: AsyncIterable<PreparedBatch>): Promise<PreparedBatch[]> {
  const all: PreparedBatch[] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

describe("the load's batches built on a worker thread", () => {
  it("are the loader's own batches, in order, byte for byte", async () => {
    const own = [...preparedBatches(demoEnvironments(demo), 40)];
    const onWorker = await collect(batchesOnWorkerThread(demo, 40));
    expect(own.map((batch) => `${batch.table}:${batch.rows}`)).toContain("notifications:40");
    expect(onWorker).toEqual(own);
  }, 60_000);

  it("load into a store the same rows as a load on one thread", async () => {
    const tables = async (prepare?: typeof batchesOnWorkerThread) => {
      const opened = await openStore({ totalCountCap: 1000 });
      try {
        await loadDemo(opened.store, demo, { batchSize: 40, ...(prepare ? { prepare } : {}) });
        const { rows } = await sql<{
          rows: string;
        }>`SELECT (SELECT string_agg(s::text, '|' ORDER BY id) FROM subscribers s)
          || (SELECT string_agg(n::text, '|' ORDER BY id) FROM notifications n) AS rows`.execute(opened.store.db);
        return rows[0]?.rows;
      } finally {
        await opened.close();
      }
    };
    const own = await tables();
    expect(own?.length).toBeGreaterThan(100_000);
    expect(await tables(batchesOnWorkerThread)).toBe(own);
  }, 120_000);

  it("fail the load with the worker's error, and stop it", async () => {
    // An anchor that is no instant: the generator throws on the worker thread as it builds the first batch.
    const broken = { ...demo, anchor: new Date(Number.NaN) };
    await expect(collect(batchesOnWorkerThread(broken, 40))).rejects.toThrow("Invalid from date: NaN");
  }, 60_000);
});
