/**
 * The queries the handlers make, over the arrays of data.ts. The contract's semantics (filters, cursors, counts, the
 * PATCH merge, dates and pages) are not written here: they come from `@novu-query/contract/model`, applied to the
 * rows of the caller's environment. What stays is what a store does: keep the rows and write a patch back.
 */
import {
  type Answer,
  inEnvironment,
  getNotification as modelGet,
  listNotifications as modelList,
  patchSubscriber as modelPatch,
  searchSubscribers as modelSearch,
  type NotificationListQuery,
  type SubscriberSearchQuery,
} from "@novu-query/contract/model";
import type { Notification, PatchSubscriberRequest } from "@novu-query/contract/types";
import { notifications, subscribers } from "./data.js";

export function searchSubscribers(environmentId: string, query: SubscriberSearchQuery) {
  return modelSearch(inEnvironment(subscribers, environmentId), query);
}

export function patchSubscriber(environmentId: string, subscriberId: string, body: PatchSubscriberRequest) {
  const answer = modelPatch(inEnvironment(subscribers, environmentId), subscriberId, body);
  if (answer.status === 200 && answer.changed) {
    subscribers[subscribers.findIndex((s) => s._id === answer.body._id)] = answer.body;
  }
  return answer;
}

export function listNotifications(environmentId: string, query: NotificationListQuery) {
  return modelList(inEnvironment(notifications, environmentId), inEnvironment(subscribers, environmentId), query);
}

export function getNotification(environmentId: string, notificationId: string): Answer<Notification> {
  return modelGet(inEnvironment(notifications, environmentId), notificationId);
}
