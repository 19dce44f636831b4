/**
 * The queries the handlers make, over the arrays of data.ts, with the contract's semantics: literal case-insensitive
 * substring filters, keyset pages on (orderBy, _id) in both directions, a capped count, PATCH as a merge that bumps
 * `__v` once per real change, notification filters ANDed with the subscriber filters ORed, newest first.
 */
import type {
  HandlerInput,
  ListNotificationsResponse,
  Notification,
  SearchSubscribersResponse,
  Subscriber,
} from "@novu-query/express";
import { notifications, subscribers } from "./data.js";

type SearchQuery = HandlerInput<"searchSubscribers">["query"];
type ListQuery = Omit<HandlerInput<"listNotifications">["query"], "after" | "before"> & { after: Date; before: Date };
type Patch = HandlerInput<"patchSubscriber">["body"];

const totalCountCap = 50_000;

function contains(value: string | null | undefined, term: string | undefined): boolean {
  return term === undefined || (value ?? "").toLowerCase().includes(term.toLowerCase());
}

function compareBy(orderBy: SearchQuery["orderBy"]) {
  return (a: Subscriber, b: Subscriber): number => {
    const [x, y] = orderBy === "_id" ? ["", ""] : [a[orderBy], b[orderBy]];
    if (x !== y) return x < y ? -1 : 1;
    return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
  };
}

export function searchSubscribers(environmentId: string, query: SearchQuery): SearchSubscribersResponse {
  const live = subscribers.filter((s) => s._environmentId === environmentId && !s.deleted);
  const matching = live.filter(
    (s) =>
      contains(s.email, query.email) &&
      contains(s.phone, query.phone) &&
      contains(`${s.firstName ?? ""} ${s.lastName ?? ""}`, query.name) &&
      (query.subscriberId === undefined || s.subscriberId === query.subscriberId),
  );
  const sign = query.orderDirection === "ASC" ? 1 : -1;
  const compare = compareBy(query.orderBy);
  const ordered = matching.sort((a, b) => sign * compare(a, b));
  const totalCount = Math.min(matching.length, totalCountCap);
  const counts = { totalCount, totalCountCapped: matching.length > totalCountCap };
  const cursorId = query.after ?? query.before;
  const cursor = cursorId === undefined ? undefined : live.find((s) => s._id === cursorId);
  if (cursorId !== undefined && !cursor) return { data: [], next: null, previous: null, ...counts };
  let page: Subscriber[];
  if (cursor && query.after !== undefined) {
    const following = ordered.filter((s) => sign * compare(s, cursor) > 0 || (query.includeCursor && s === cursor));
    page = following.slice(0, query.limit);
  } else if (cursor) {
    const preceding = ordered.filter((s) => sign * compare(s, cursor) < 0 || (query.includeCursor && s === cursor));
    page = preceding.slice(-query.limit);
  } else {
    page = ordered.slice(0, query.limit);
  }
  const first = page[0];
  const last = page.at(-1);
  return {
    data: page.map((s) => structuredClone(s)),
    next: last && ordered.indexOf(last) < ordered.length - 1 ? last._id : null,
    previous: first && ordered.indexOf(first) > 0 ? first._id : null,
    ...counts,
  };
}

/** The subscriber after the patch, or undefined when there is none of that subscriberId. */
export function patchSubscriber(environmentId: string, subscriberId: string, patch: Patch): Subscriber | undefined {
  const subscriber = subscribers.find(
    (s) => s._environmentId === environmentId && s.subscriberId === subscriberId && !s.deleted,
  );
  if (!subscriber) return undefined;
  const changes = Object.entries(patch).filter(
    ([field, value]) => JSON.stringify(subscriber[field as keyof Patch]) !== JSON.stringify(value),
  );
  if (changes.length > 0) {
    Object.assign(subscriber, Object.fromEntries(changes));
    subscriber.__v += 1;
    subscriber.updatedAt = new Date().toISOString();
  }
  return structuredClone(subscriber);
}

function subscriberFilter(environmentId: string, query: ListQuery): Set<string> | undefined {
  const { emails, subscriberIds, search } = query;
  if (emails === undefined && subscriberIds === undefined && search === undefined) return undefined;
  const ids = subscribers
    .filter((s) => s._environmentId === environmentId)
    .filter(
      (s) =>
        (emails ?? []).includes(s.email ?? "") ||
        (subscriberIds ?? []).includes(s.subscriberId) ||
        (search !== undefined && (contains(s.email, search) || s.subscriberId === search)),
    )
    .map((s) => s._id);
  return new Set(ids);
}

export function listNotifications(environmentId: string, query: ListQuery): ListNotificationsResponse {
  const to = subscriberFilter(environmentId, query);
  const matching = notifications
    .filter((n) => n._environmentId === environmentId)
    .filter((n) => to === undefined || to.has(n._subscriberId))
    .filter((n) => query.channels === undefined || n.channels.some((c) => query.channels?.includes(c)))
    .filter((n) => query.templates === undefined || query.templates.includes(n._templateId ?? ""))
    .filter((n) => query.severity === undefined || query.severity.includes(n.severity))
    .filter((n) => query.transactionId === undefined || n.transactionId === query.transactionId)
    .filter((n) => query.topicKey === undefined || (n.topics ?? []).some((t) => t.topicKey === query.topicKey))
    .filter(
      (n) => Date.parse(n.createdAt) >= query.after.getTime() && Date.parse(n.createdAt) <= query.before.getTime(),
    )
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b._id.localeCompare(a._id));
  const offset = query.page * query.limit;
  return {
    data: matching.slice(offset, offset + query.limit).map((n) => structuredClone(n)),
    hasMore: matching.length > offset + query.limit,
    pageSize: query.limit,
    page: query.page,
  };
}

export function getNotification(environmentId: string, notificationId: string): Notification | undefined {
  const found = notifications.find((n) => n._environmentId === environmentId && n._id === notificationId);
  return found && structuredClone(found);
}
