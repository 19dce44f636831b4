import { listWindow, readable } from "@novu-query/contract/model";
import { handler, messages } from "@novu-query/express";

export const listNotifications = handler("listNotifications", async ({ query }, { auth, store, errors }) => {
  const window = listWindow(query, { retentionDays: auth.effectiveRetentionDays });
  if ("status" in window) {
    throw window.status === 402 ? errors.paymentRequired(window.message) : errors.badRequest(window.message);
  }
  return { status: 200, body: await store.notifications.list(auth.environmentId, { ...query, ...window }) };
});

export const getNotification = handler("getNotification", async ({ path }, { auth, store, errors }) => {
  const notification = await store.notifications.get(auth.environmentId, path.notificationId);
  // Retention holds for reads by id too (the model's `readable`): older is not found, as once purged.
  if (!notification || !readable(notification, { retentionDays: auth.effectiveRetentionDays })) {
    throw errors.notFound(messages.notificationNotFound);
  }
  return { status: 200, body: notification };
});
