/**
 * Wire messages that clients (and Novu's own tests) match on, in Novu's exact words. Each names the Novu source it
 * follows; the spec's named examples show the same texts.
 */
export const messages = {
  /** Novu: libs/dal subscriber repository and every v2 list use case. */
  bothCursors: 'Cannot specify both "before" and "after" cursors at the same time.',
  /** Novu: apps/api notifications get-activity-feed use case. */
  dateRangeReversed: "Invalid date range: start date (after) must be earlier than end date (before)",
  /** Novu: apps/api/src/app/shared/framework/idempotency.interceptor.ts. */
  idempotencyKeyTooLong: (key: string) =>
    `idempotencyKey "${key}" has exceeded the maximum allowed length of 255 characters`,
  idempotencyInFlight: (key: string) =>
    `Request with key "${key}" is currently being processed. Please retry after 1 second`,
  idempotencyKeyReused: (key: string) => `Request with key "${key}" is being reused for a different body`,
} as const;

/** Where Novu's idempotency answers point (its `Link` header). */
export const idempotencyDocsLink = "https://docs.novu.co/additional-resources/idempotency";
