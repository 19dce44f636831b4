import type { AtOnceHandlers, Handlers } from "@novu-query/express";
import { getNotification, listNotifications } from "./notifications.js";
import { patchSubscriber, patchSubscriberAtOnce, searchSubscribers } from "./subscribers.js";

/** Every operation's handler. `npm run scaffold` (part of `npm run build`) adds a stub here for an operation the spec gains. */
export const handlers = {
  searchSubscribers,
  patchSubscriber,
  listNotifications,
  getNotification,
} satisfies Handlers;

/** The operations whose work and stored answer the store does in one step for a request with an idempotency key. */
export const atOnceHandlers = { patchSubscriber: patchSubscriberAtOnce } satisfies AtOnceHandlers;
