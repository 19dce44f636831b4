/**
 * The notification operations' semantics over arrays of one environment's notifications and subscribers: the list
 * (every filter, the date window and retention, newest first, pages) and get by id.
 */

import { operationTable } from "../../generated/operations.js";
import type { ListNotificationsResponse, Notification, operations, Subscriber } from "../../generated/schema.js";
import { type Answer, ok } from "./answers.js";
import { givenSubscriberFilters, passesFilters } from "./inputs/index.js";
import { messages } from "./messages.js";
import { type ListOptions, listWindow, retentionStart } from "./window.js";

/** The list's query as a client sends it: every parameter optional, the spec's defaults filled in here. */
export type NotificationListQuery = NonNullable<operations["listNotifications"]["parameters"]["query"]>;

/**
 * The `_id`s of the live subscribers the subscriber filters resolve to (each declared in
 * inputs/list-notifications.ts: `emails` exactly, `subscriberIds` exactly, `search` as a case-insensitive substring
 * of the e-mail or exactly the subscriberId), ORed; undefined when the query has none of them (every notification
 * passes).
 */
export function resolveSubscriberFilters(subscribers: readonly Subscriber[], query: object): Set<string> | undefined {
  const filters = givenSubscriberFilters("listNotifications", query);
  if (filters.length === 0) return undefined;
  const resolved = subscribers.filter((s) => !s.deleted && filters.some((resolves) => resolves(s)));
  return new Set(resolved.map((s) => s._id));
}

/** Whether a notification passes the filters other than the subscriber filters and the dates (ANDed). */
export function matchesNotificationFilters(notification: Notification, query: NotificationListQuery): boolean {
  return passesFilters("listNotifications", notification, query);
}

/** Newest first: `createdAt`, then `_id`, both descending. */
export function compareNewestFirst(a: Notification, b: Notification): number {
  const byTime = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  if (byTime !== 0) return byTime;
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0;
}

/**
 * Every notification a list query selects, across all its pages: those that pass every filter (ANDed; the
 * subscriber filters ORed among themselves) with `createdAt` inside the inclusive window, newest first, the rows
 * themselves (not copies); or the refusal the list answers. `page` and `limit` are not read.
 */
export function listedNotifications(
  notifications: readonly Notification[],
  subscribers: readonly Subscriber[],
  query: NotificationListQuery,
  options: ListOptions = {},
): Answer<readonly Notification[]> {
  const window = listWindow(query, options);
  if ("status" in window) return window;
  const to = resolveSubscriberFilters(subscribers, query);
  const after = window.after.getTime();
  const before = window.before.getTime();
  const matching = notifications
    .filter((n) => {
      const created = Date.parse(n.createdAt);
      return created >= after && created <= before;
    })
    .filter((n) => (to === undefined || to.has(n._subscriberId)) && matchesNotificationFilters(n, query))
    .sort(compareNewestFirst);
  return ok(matching);
}

/** One page of the list (`listedNotifications`), `limit` rows from `page * limit`; `hasMore` when another follows. */
export function listNotifications(
  notifications: readonly Notification[],
  subscribers: readonly Subscriber[],
  query: NotificationListQuery,
  options: ListOptions = {},
): Answer<ListNotificationsResponse> {
  const listed = listedNotifications(notifications, subscribers, query, options);
  if (listed.status !== 200) return listed;
  const { page, limit } = { ...operationTable.listNotifications.queryDefaults, ...query };
  const offset = page * limit;
  return ok({
    data: structuredClone(listed.body.slice(offset, offset + limit)),
    hasMore: listed.body.length > offset + limit,
    pageSize: limit,
    page,
  });
}

/** The notification with this `_id`, or the 404. */
export function getNotification(
  notifications: readonly Notification[],
  notificationId: string,
  options: ListOptions = {},
): Answer<Notification> {
  const found = notifications.find((n) => n._id === notificationId);
  return found && readable(found, options)
    ? ok(structuredClone(found))
    : { status: 404, example: "NotificationNotFound", message: messages.notificationNotFound };
}

/**
 * Whether retention lets a notification be read by id: created on or after the first day the window covers. One
 * older is answered as not found, as it would be once purged (`PURGE_AFTER_DAYS`); the list answers 402 for a window
 * that starts before it, since the caller asked for those days.
 */
export function readable(notification: Pick<Notification, "createdAt">, options: ListOptions = {}): boolean {
  const earliest = retentionStart(options.now ?? new Date(), options.retentionDays);
  return earliest === undefined || Date.parse(notification.createdAt) >= earliest.getTime();
}
