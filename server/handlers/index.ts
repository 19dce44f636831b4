import type { Handlers } from "@novu-query/express";
import { getNotification, listNotifications } from "./notifications.js";
import { patchSubscriber, searchSubscribers } from "./subscribers.js";

/** Every operation's handler. `npm run scaffold` (part of `npm run build`) adds a stub here for an operation the spec gains. */
export const handlers = {
  searchSubscribers,
  patchSubscriber,
  listNotifications,
  getNotification,
} satisfies Handlers;
