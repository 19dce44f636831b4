import { ApiError } from "../errors.js";
import type { Handler } from "../handler-types.js";
import { messages } from "../messages.js";

function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const searchSubscribers: Handler<"searchSubscribers"> = async ({ query }, { auth, store }) => {
  if (query.after !== undefined && query.before !== undefined) {
    throw ApiError.badRequest(messages.bothCursors);
  }
  return { status: 200, body: await store.subscribers.search(auth.environmentId, query) };
};

export const patchSubscriber: Handler<"patchSubscriber"> = async ({ path, body }, { auth, store }) => {
  if (typeof body.timezone === "string" && !isKnownTimeZone(body.timezone)) {
    throw ApiError.validation({
      "body.timezone": { messages: ["must be an IANA time zone name"], value: body.timezone },
    });
  }
  const subscriber = await store.subscribers.patch(auth.environmentId, path.subscriberId, body);
  if (!subscriber) throw ApiError.notFound(messages.subscriberNotFound(path.subscriberId));
  return { status: 200, body: subscriber };
};
