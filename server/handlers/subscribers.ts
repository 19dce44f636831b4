import { handler, messages } from "@novu-query/express";

// The pipeline has refused what the contract refuses without data (both cursors, an unknown time zone): these read
// and write only.
export const searchSubscribers = handler("searchSubscribers", async ({ query }, { auth, store }) => {
  return { status: 200, body: await store.subscribers.search(auth.environmentId, query) };
});

export const patchSubscriber = handler("patchSubscriber", async ({ path, body }, { auth, store, errors }) => {
  const subscriber = await store.subscribers.patch(auth.environmentId, path.subscriberId, body);
  if (!subscriber) throw errors.notFound(messages.subscriberNotFound(path.subscriberId));
  return { status: 200, body: subscriber };
});
