import { expect } from "vitest";
import type { DemoEnvironment } from "../../server/demo/generate.js";
import type { SubscriberRow } from "../../server/store/rows.js";
import type { SubscriberSearch } from "../../server/store/subscribers.js";

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

/** The store's query for the first page of a search, newest `_id` first, with these filters. */
export function firstPageQuery(
  filters: Pick<SubscriberSearch, "email" | "name" | "phone" | "subscriberId">,
  limit = 10,
): SubscriberSearch {
  return { limit, orderBy: "_id", orderDirection: "DESC", includeCursor: false, ...filters };
}

/**
 * Expects a search's `totalCount` and `totalCountCapped` to be what a plain count of the matching rows says under the
 * cap, and tallies which side of the cap each comparison was on, so that a property can show it compared both.
 */
export class CappedCountChecks {
  over = 0;
  under = 0;
  private readonly cap: number;

  constructor(cap: number) {
    this.cap = cap;
  }

  expect(page: { totalCount: number; totalCountCapped: boolean }, rows: number): void {
    expect({ totalCount: page.totalCount, totalCountCapped: page.totalCountCapped }).toEqual({
      totalCount: Math.min(rows, this.cap),
      totalCountCapped: rows > this.cap,
    });
    if (rows > this.cap) this.over++;
    else if (rows > 0) this.under++;
  }

  /** Both sides of the cap were compared more than `times` times, not only empty answers. */
  expectBothSides(times: number): void {
    expect(this.over).toBeGreaterThan(times);
    expect(this.under).toBeGreaterThan(times);
  }
}
