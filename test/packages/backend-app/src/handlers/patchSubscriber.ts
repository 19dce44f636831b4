import { handler, messages } from "@novu-query/express";
import { environments } from "../data.js";
import { patchSubscriber as patch } from "../store.js";

export const patchSubscriber = handler("patchSubscriber", async ({ path, body }, { auth, errors }) => {
  const subscriber = patch(environments[auth.environment]?.id ?? "", path.subscriberId, body);
  if (!subscriber) throw errors.notFound(messages.subscriberNotFound(path.subscriberId));
  return { status: 200, body: subscriber };
});
