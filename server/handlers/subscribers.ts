import { patchRefusal, searchRefusal } from "@novu-query/contract/model";
import { handler, messages } from "@novu-query/express";

export const searchSubscribers = handler("searchSubscribers", async ({ query }, { auth, store, errors }) => {
  const refused = searchRefusal(query);
  if (refused) throw errors.badRequest(refused.message);
  return { status: 200, body: await store.subscribers.search(auth.environmentId, query) };
});

export const patchSubscriber = handler("patchSubscriber", async ({ path, body }, { auth, store, errors }) => {
  const refused = patchRefusal(body);
  if (refused?.errors) throw errors.validation(refused.errors);
  const subscriber = await store.subscribers.patch(auth.environmentId, path.subscriberId, body);
  if (!subscriber) throw errors.notFound(messages.subscriberNotFound(path.subscriberId));
  return { status: 200, body: subscriber };
});
