/**
 * The date window a notification list reads: `after` and `before` (inclusive) with their defaults, the start of the
 * environment's retention, and the refusals of a window (400 reversed, 402 before the retention).
 */
import type { operations } from "../../generated/schema.js";
import type { Refusal } from "./answers.js";
import { dateTimeMilliseconds, storableInstant } from "./date-time.js";
import { messages } from "./messages.js";

export interface ListOptions {
  /** The time the request is answered at: `before`'s default and the retention window's end. Default: now. */
  now?: Date;
  /** Days of history the environment may read (the window starts at midnight UTC); null or absent: unlimited. */
  retentionDays?: number | null;
}

type Bounds = Pick<NonNullable<operations["listNotifications"]["parameters"]["query"]>, "after" | "before">;

const dayMs = 86_400_000;

/** Midnight UTC of the first day a retention of `days` covers, or undefined for unlimited retention. */
export function retentionStart(now: Date, days: number | null | undefined): Date | undefined {
  if (days === null || days === undefined) return undefined;
  const start = new Date(now.getTime() - days * dayMs);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
}

/** The inclusive window on `createdAt` a list reads, or the refusal of its dates (400 reversed, 402 retention). */
export function listWindow(query: Bounds, options: ListOptions = {}): { after: Date; before: Date } | Refusal {
  const now = options.now ?? new Date();
  const earliest = retentionStart(now, options.retentionDays);
  const after = query.after !== undefined ? dateTimeMilliseconds(query.after) : (earliest ?? new Date(0)).getTime();
  const before = query.before !== undefined ? dateTimeMilliseconds(query.before) : now.getTime();
  if (after > before) return { status: 400, example: "BadRequestDateRange", message: messages.dateRangeReversed };
  if (earliest && after < earliest.getTime()) {
    const message = messages.retentionExceeded(earliest.toISOString().slice(0, 10));
    return { status: 402, example: "PaymentRequiredRetention", message };
  }
  return { after: storableInstant(after), before: storableInstant(before) };
}
