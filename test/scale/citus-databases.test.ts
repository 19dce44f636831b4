/**
 * On Citus (CITUS=on), the test files make their databases at the same moment: each joins the workers with
 * `citus_add_node`, which copies the roles to each worker, and two at once failed one of them ("failure on connection
 * marked as essential"; "tuple concurrently updated" in the worker's log). scripts/citus-database.ts joins one at a time.
 */
import { describe, expect, it } from "vitest";
import { createPostgresDatabase, onCitus } from "../support/databases.js";

describe.runIf(onCitus)("databases made on Citus", () => {
  it("are made eight at once, every one with its workers", async () => {
    const made = await Promise.allSettled(Array.from({ length: 8 }, () => createPostgresDatabase()));
    const failures = made.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));
    for (const result of made) if (result.status === "fulfilled") await result.value.drop();
    expect(failures).toEqual([]);
  }, 120_000);
});
