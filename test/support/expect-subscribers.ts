import { expect } from "vitest";
import type { DemoEnvironment } from "../../server/demo/generate.js";
import type { SubscriberRow } from "../../server/store/rows.js";

export type OrderBy = "_id" | "createdAt" | "updatedAt";
export type Direction = "ASC" | "DESC";

const column = { _id: "id", createdAt: "created_at", updatedAt: "updated_at" } as const;

/** The subscribers a search should return, in order, computed from the demo data without the server. */
export function expectedSubscribers(
  environment: DemoEnvironment,
  options: { orderBy?: OrderBy; orderDirection?: Direction; filter?: (s: SubscriberRow) => boolean } = {},
): SubscriberRow[] {
  const key = column[options.orderBy ?? "_id"];
  const sign = (options.orderDirection ?? "DESC") === "ASC" ? 1 : -1;
  return environment.subscribers
    .filter((s) => !s.deleted && (options.filter?.(s) ?? true))
    .sort((a, b) => {
      const primary = key === "id" ? 0 : Date.parse(a[key]) - Date.parse(b[key]);
      if (primary !== 0) return sign * primary;
      return sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    });
}

/**
 * Expects a search's `totalCount` and `totalCountCapped` to be what counting `rows` matches says under `cap`, and
 * returns which side of the cap the count was on, so that a property can show it compared both.
 */
export function expectCappedCount(
  page: { totalCount: number; totalCountCapped: boolean },
  rows: number,
  cap: number,
): "over" | "under" | "none" {
  expect({ totalCount: page.totalCount, totalCountCapped: page.totalCountCapped }).toEqual({
    totalCount: Math.min(rows, cap),
    totalCountCapped: rows > cap,
  });
  return rows > cap ? "over" : rows > 0 ? "under" : "none";
}
