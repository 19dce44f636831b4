/**
 * How the static MSW handlers make a named example answer the request in front of them, so that a list screen built
 * on them behaves: the records are the spec's examples, and
 *
 * - a search's filters are applied to the example's rows, and a lookup by `subscriberId` answers with that subscriber;
 * - a PATCH answers with the subscriber asked for, its body applied as the server applies it (`null` clears, a change
 *   bumps `__v`), and a get answers with the notification asked for;
 * - a page asked for by cursor or by page number is the last one, of rows with ids of their own, so that walking the
 *   pages ends without a repeated id.
 *
 * A record the examples lack is the operation's first example under the requested id, with an `_id` of its own.
 */
import { operationTable } from "../../generated/operations.js";
import type {
  ListNotificationsResponse,
  Notification,
  PatchSubscriberRequest,
  SearchSubscribersResponse,
  Subscriber,
} from "../../generated/schema.js";
import { givenSubscriberFilters } from "../model/inputs/index.js";
import { matchesNotificationFilters, type NotificationListQuery } from "../model/notifications.js";
import { matchesSearch, patchSubscriber, type SubscriberSearchQuery } from "../model/subscribers.js";
import { exampleValue } from "./spec.js";

/** The page that a cursor or a page number leads to: the second and last. */
const laterPage = 2;

function exampleValues(names: readonly string[]): unknown[] {
  return names.map(exampleValue);
}

/** FNV-1a over the text, twice (two seeds): 16 hexadecimal characters. */
function hash16(text: string): string {
  let [a, b] = [0x811c9dc5, 0x01000193 ^ 0x9e3779b9];
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193) >>> 0;
    b = Math.imul(b ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** An id like `like` (same first 8 characters: the same creation second), of its own for `name`. */
export function derivedId(like: string, name: string): string {
  return like.slice(0, 8) + hash16(name);
}

/** `user-9107` -> `user-9107-2`; `jonas.weber@example.org` -> `jonas.weber2@example.org`. */
function onLaterPage<T extends Subscriber | Notification>(record: T): T {
  const copy = structuredClone(record);
  copy._id = derivedId(record._id, `${record._id}/${laterPage}`);
  if ("subscriberId" in copy) {
    copy.subscriberId = `${copy.subscriberId}-${laterPage}`;
    if (copy.email) copy.email = copy.email.replace("@", `${laterPage}@`);
  }
  if ("transactionId" in copy) copy.transactionId = `${copy.transactionId}-${laterPage}`;
  return copy;
}

/** Every subscriber of the examples, then each on the later page: what a PATCH or a lookup can find. */
function exampleSubscribers(): Subscriber[] {
  const pages = exampleValues(operationTable.searchSubscribers.examples["200"]) as SearchSubscribersResponse[];
  const own = [
    ...pages.flatMap((page) => page.data),
    ...(exampleValues(operationTable.patchSubscriber.examples["200"]) as Subscriber[]),
  ];
  const unique = own.filter((s, i) => own.findIndex((other) => other.subscriberId === s.subscriberId) === i);
  return [...unique, ...unique.map(onLaterPage)];
}

function exampleNotifications(): Notification[] {
  const pages = exampleValues(operationTable.listNotifications.examples["200"]) as ListNotificationsResponse[];
  const own = [
    ...pages.flatMap((page) => page.data),
    ...(exampleValues(operationTable.getNotification.examples["200"]) as Notification[]),
  ];
  return [...own, ...own.map(onLaterPage)];
}

/** The subscriber with this `subscriberId`: the examples' own, or `fallback` under that id with an `_id` of its own. */
function subscriberNamed(subscriberId: string, fallback: Subscriber): Subscriber {
  const found = exampleSubscribers().find((s) => s.subscriberId === subscriberId);
  return found ?? { ...fallback, subscriberId, _id: derivedId(fallback._id, subscriberId) };
}

/** A search: the example page with the query's filters applied; a cursor leads to the last page. */
export function fitSearch(example: SearchSubscribersResponse, query: SubscriberSearchQuery): SearchSubscribersResponse {
  const cursor = query.after !== undefined ? "after" : query.before !== undefined ? "before" : undefined;
  const filtered = query.email !== undefined || query.phone !== undefined || query.name !== undefined;
  if (cursor === undefined && !filtered && query.subscriberId === undefined) return example;
  let rows = example.data;
  if (query.subscriberId !== undefined && rows[0]) rows = [subscriberNamed(query.subscriberId, rows[0])];
  if (cursor !== undefined) rows = rows.map(onLaterPage);
  rows = rows.filter((s) => matchesSearch(s, query));
  if (cursor === undefined) {
    return { data: rows, next: null, previous: null, totalCount: rows.length, totalCountCapped: false };
  }
  // The later page ends the walk: after it nothing follows; before it, nothing precedes.
  return cursor === "after" ? { ...example, data: rows, next: null } : { ...example, data: rows, previous: null };
}

/** A PATCH: the subscriber asked for, the body applied; a subscriber the examples lack is `example` under its id. */
export function fitPatch(example: Subscriber, subscriberId: string, body: PatchSubscriberRequest): Subscriber {
  const subscriber = subscriberNamed(subscriberId, example);
  const answer = patchSubscriber([subscriber], subscriberId, body);
  return answer.status === 200 ? answer.body : subscriber;
}

/** Whether a notification's subscriber passes the subscriber filters (ORed), as the embedded subscriber shows it. */
function toFilteredSubscriber(notification: Notification, query: NotificationListQuery): boolean {
  const filters = givenSubscriberFilters("listNotifications", query);
  if (filters.length === 0) return true;
  const { email = null, subscriberId } = notification.subscriber ?? {};
  return subscriberId !== undefined && filters.some((resolves) => resolves({ email, subscriberId }));
}

/**
 * A list: the example page with the query's filters applied (not its dates: the examples are of fixed days); a later
 * page number is the last page, of notifications with ids of their own.
 */
export function fitList(example: ListNotificationsResponse, query: NotificationListQuery): ListNotificationsResponse {
  const page = query.page ?? 0;
  const rows = (page === 0 ? example.data : example.data.map(onLaterPage)).filter(
    (n) => matchesNotificationFilters(n, query) && toFilteredSubscriber(n, query),
  );
  if (page === 0 && rows.length === example.data.length) return example;
  // A filtered first page holds every match there is; a later page is the last.
  return { ...example, data: rows, hasMore: false, page };
}

/** A get: the notification with this `_id` from the examples (a listed one opens as listed), or `example` under it. */
export function fitGet(example: Notification, notificationId: string): Notification {
  return exampleNotifications().find((n) => n._id === notificationId) ?? { ...example, _id: notificationId };
}
