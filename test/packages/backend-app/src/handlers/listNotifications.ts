import { handler, messages } from "@novu-query/express";
import { environments } from "../data.js";
import { listNotifications as list } from "../store.js";

export const listNotifications = handler("listNotifications", async ({ query }, { auth, errors }) => {
  const after = new Date(query.after ?? 0);
  const before = query.before !== undefined ? new Date(query.before) : new Date();
  if (after > before) throw errors.badRequest(messages.dateRangeReversed);
  return { status: 200, body: list(environments[auth.environment]?.id ?? "", { ...query, after, before }) };
});
