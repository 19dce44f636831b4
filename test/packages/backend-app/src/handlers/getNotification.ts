import { handler } from "@novu-query/express";
import { environments } from "../data.js";
import { getNotification as get } from "../store.js";

export const getNotification = handler("getNotification", async ({ path }, { auth, errors }) => {
  const answer = get(environments[auth.environmentId]?.id ?? "", path.notificationId);
  if (answer.status !== 200) throw errors.notFound(answer.message);
  return { status: 200, body: answer.body };
});
