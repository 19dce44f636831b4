import { handler, messages } from "@novu-query/express";
import { environments } from "../data.js";
import { searchSubscribers as search } from "../store.js";

export const searchSubscribers = handler("searchSubscribers", async ({ query }, { auth, errors }) => {
  if (query.after !== undefined && query.before !== undefined) throw errors.badRequest(messages.bothCursors);
  return { status: 200, body: search(environments[auth.environment]?.id ?? "", query) };
});
