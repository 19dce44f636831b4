/**
 * The demo loader's batches (server/demo/load.ts, `writeOverlapped`): every row written once and in order, at most two
 * batches waiting at the connection, and a batch that fails fails the load with its own error; and a load of many
 * batches into PGlite, on its thread and on this one, writes exactly the generator's rows.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { generateDemoData } from "../../server/demo/generate.js";
import { batches, loadDemo, writeOverlapped } from "../../server/demo/load.js";
import { defaultDemoOptions } from "../../server/demo/options.js";
import { openStore } from "../../server/store/store.js";

const rows = Array.from({ length: 23 }, (_, i) => i);
const later = () => new Promise((resolve) => setTimeout(resolve, 2));

describe("the loader's overlapped writes", () => {
  it("write every row once, in order, with at most two batches waiting", async () => {
    const written: number[] = [];
    let inFlight = 0;
    let most = 0;
    await writeOverlapped(batches(rows, 5), async (batch) => {
      most = Math.max(most, ++inFlight);
      // One connection: a batch is written after the ones before it.
      await later();
      written.push(...batch);
      inFlight--;
    });
    expect(written).toEqual(rows);
    expect(most).toBe(2);
  });

  it("fail with the first failed batch's error", async () => {
    const started: number[] = [];
    const load = writeOverlapped(batches(rows, 5), async (batch) => {
      started.push(batch[0] as number);
      await later();
      if (batch[0] === 5) throw new Error("batch 2 failed");
      if ((batch[0] as number) > 5) throw new Error("current transaction is aborted");
    });
    await expect(load).rejects.toThrow("batch 2 failed");
    // Nothing started after the failure was seen, but the one already waiting behind it.
    expect(started.length).toBeLessThanOrEqual(3);
  });
});

describe.each([true, false])("a load of many batches into PGlite (on its thread: %s)", (pgliteThread) => {
  it("writes exactly the generator's rows", async () => {
    const demo = { ...defaultDemoOptions, subscribers: 120, notifications: 360 };
    const opened = await openStore({ totalCountCap: 1000, pgliteThread });
    try {
      await loadDemo(opened.store, demo, { batchSize: 25 });
      const ids = async (table: "subscribers" | "notifications") =>
        (await sql<{ id: string }>`SELECT id FROM ${sql.table(table)} ORDER BY id`.execute(opened.store.db)).rows.map(
          (row) => row.id.trim(),
        );
      const generated = generateDemoData(demo);
      const expected = (rows: { id: string }[]) => rows.map((row) => row.id).sort();
      expect(await ids("subscribers")).toEqual(expected(generated.flatMap((environment) => environment.subscribers)));
      expect(await ids("notifications")).toEqual(
        expected(generated.flatMap((environment) => environment.notifications)),
      );
    } finally {
      await opened.close();
    }
  }, 60_000);
});
