import { handler, messages } from "@novu-query/express";
import { environments } from "../data.js";
import { getNotification as get } from "../store.js";

export const getNotification = handler("getNotification", async ({ path }, { auth, errors }) => {
  const notification = get(environments[auth.environment]?.id ?? "", path.notificationId);
  if (!notification) throw errors.notFound(messages.notificationNotFound);
  return { status: 200, body: notification };
});
