import { handler } from "@novu-query/express";
import { environments } from "../data.js";
import { listNotifications as list } from "../store.js";

export const listNotifications = handler("listNotifications", async ({ query }, { auth, errors }) => {
  const answer = list(environments[auth.environmentId]?.id ?? "", query);
  if (answer.status === 402) throw errors.paymentRequired(answer.message);
  if (answer.status !== 200) throw errors.badRequest(answer.message);
  return { status: 200, body: answer.body };
});
