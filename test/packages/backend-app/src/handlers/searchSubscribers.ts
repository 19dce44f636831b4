import { handler } from "@novu-query/express";
import { environments } from "../data.js";
import { searchSubscribers as search } from "../store.js";

export const searchSubscribers = handler("searchSubscribers", async ({ query }, { auth, errors }) => {
  const answer = search(environments[auth.environmentId]?.id ?? "", query);
  if (answer.status !== 200) throw errors.badRequest(answer.message);
  return { status: 200, body: answer.body };
});
