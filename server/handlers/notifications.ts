import { handler, messages } from "@novu-query/express";

const dayMs = 86_400_000;

/** Midnight UTC of the first day the retention window covers, or undefined for unlimited retention. */
function retentionStart(now: Date, days: number | null): Date | undefined {
  if (days === null) return undefined;
  const start = new Date(now.getTime() - days * dayMs);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
}

export const listNotifications = handler("listNotifications", async ({ query }, { auth, store, errors }) => {
  const now = new Date();
  const earliest = retentionStart(now, auth.effectiveRetentionDays);
  const after = query.after !== undefined ? new Date(query.after) : (earliest ?? new Date(0));
  const before = query.before !== undefined ? new Date(query.before) : now;
  if (after > before) throw errors.badRequest(messages.dateRangeReversed);
  if (earliest && after < earliest) {
    throw errors.paymentRequired(messages.retentionExceeded(earliest.toISOString().slice(0, 10)));
  }
  return { status: 200, body: await store.notifications.list(auth.environmentId, { ...query, after, before }) };
});

export const getNotification = handler("getNotification", async ({ path }, { auth, store, errors }) => {
  const notification = await store.notifications.get(auth.environmentId, path.notificationId);
  if (!notification) throw errors.notFound(messages.notificationNotFound);
  return { status: 200, body: notification };
});
