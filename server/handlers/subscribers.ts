import { handler, messages } from "@novu-query/express";

function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const searchSubscribers = handler("searchSubscribers", async ({ query }, { auth, store, errors }) => {
  if (query.after !== undefined && query.before !== undefined) {
    throw errors.badRequest(messages.bothCursors);
  }
  return { status: 200, body: await store.subscribers.search(auth.environmentId, query) };
});

export const patchSubscriber = handler("patchSubscriber", async ({ path, body }, { auth, store, errors }) => {
  if (typeof body.timezone === "string" && !isKnownTimeZone(body.timezone)) {
    throw errors.validation({
      "body.timezone": { messages: ["must be an IANA time zone name"], value: body.timezone },
    });
  }
  const subscriber = await store.subscribers.patch(auth.environmentId, path.subscriberId, body);
  if (!subscriber) throw errors.notFound(messages.subscriberNotFound(path.subscriberId));
  return { status: 200, body: subscriber };
});
