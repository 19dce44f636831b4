import { listWindow, readable } from "@novu-query/contract/model";
import type { Notification, operations } from "@novu-query/contract/types";
import { handler, messages, serialized } from "@novu-query/express";

type NotificationPage = operations["listNotifications"]["responses"][200]["content"]["application/json"];

// Both answers are the store's JSON text (D59), sent as it is (`serialized`); checked against the spec where answers
// are validated (development), like any other body.
export const listNotifications = handler("listNotifications", async ({ query }, { auth, store, errors }) => {
  const window = listWindow(query, { retentionDays: auth.effectiveRetentionDays });
  if ("status" in window) {
    throw window.status === 402 ? errors.paymentRequired(window.message) : errors.badRequest(window.message);
  }
  const pieces = await store.notifications.pagePieces(auth.environmentId, { ...query, ...window });
  return { status: 200, body: serialized<NotificationPage>(pieces) };
});

export const getNotification = handler("getNotification", async ({ path }, { auth, store, errors }) => {
  const notification = await store.notifications.answer(auth.environmentId, path.notificationId);
  // Retention holds for reads by id too (the model's `readable`): older is not found, as once purged.
  if (!notification || !readable(notification, { retentionDays: auth.effectiveRetentionDays })) {
    throw errors.notFound(messages.notificationNotFound);
  }
  return { status: 200, body: serialized<Notification>(notification.text) };
});
