/**
 * The subscriber operations' semantics over an array of one environment's subscribers: search (filters, keyset
 * cursors in both directions, the capped count) and the PATCH merge.
 */
import { operationTable } from "../../generated/operations.js";
import type {
  operations,
  PatchSubscriberRequest,
  SearchSubscribersResponse,
  Subscriber,
} from "../../generated/schema.js";
import { type Answer, ok, type Refusal } from "./answers.js";
import { canonicalJson } from "./canonical-json.js";
import { passesFilters, refusalOf } from "./inputs/index.js";
import { messages } from "./messages.js";
import {
  type CursorPosition,
  comparePositions,
  cursorPosition,
  positionOf,
  readSubscriberCursor,
  subscriberCursorOf,
} from "./subscriber-cursor.js";

/** The search's query as a client sends it: every parameter optional, the spec's defaults filled in here. */
export type SubscriberSearchQuery = NonNullable<operations["searchSubscribers"]["parameters"]["query"]>;

/** Above this many matches a search reports `totalCountCapped` (Novu's 50,000). */
export const defaultTotalCountCap = 50_000;

export interface SearchOptions {
  totalCountCap?: number;
}

/** Whether a live subscriber passes the search's filters (each declared in inputs/search-subscribers.ts; ANDed). */
export function matchesSearch(subscriber: Subscriber, query: SubscriberSearchQuery): boolean {
  return passesFilters("searchSubscribers", subscriber, query);
}

type OrderBy = NonNullable<SubscriberSearchQuery["orderBy"]>;

/** Ascending order on (orderBy, _id): timestamps are ISO 8601 in UTC, so their text sorts as their time. */
export function compareSubscribers(orderBy: OrderBy): (a: Subscriber, b: Subscriber) => number {
  return (a, b) => comparePositions(positionOf(a, orderBy), positionOf(b, orderBy));
}

/** The refusal a search query gets before any row is read (both cursors), if any. */
export function searchRefusal(query: SubscriberSearchQuery): Refusal | undefined {
  return refusalOf("searchSubscribers", { query, path: {}, body: {} }, { now: new Date() });
}

/**
 * One page of a search. Rows are the live subscribers in (orderBy, _id) order; `after` gives the rows past the place
 * its cursor marks and `before` those ahead of it (the last `limit` of them), the cursor's row too with
 * `includeCursor` when it is there and matches (subscriber-cursor.ts reads a cursor). `next` is the cursor of the
 * page's last row when a matching row follows it, `previous` that of its first when one precedes it. A cursor that
 * names no live subscriber of the environment gives an empty page. `totalCount` counts every match, whatever the
 * cursor, up to the cap.
 */
export function searchSubscribers(
  subscribers: readonly Subscriber[],
  query: SubscriberSearchQuery,
  options: SearchOptions = {},
): Answer<SearchSubscribersResponse> {
  const refused = searchRefusal(query);
  if (refused) return refused;
  const { limit, orderBy, orderDirection, includeCursor } = {
    ...operationTable.searchSubscribers.queryDefaults,
    ...query,
  };
  const cap = options.totalCountCap ?? defaultTotalCountCap;
  const live = subscribers.filter((s) => !s.deleted);
  const sign = orderDirection === "ASC" ? 1 : -1;
  const ascending = compareSubscribers(orderBy);
  const ordered = live.filter((s) => matchesSearch(s, query)).sort((a, b) => sign * ascending(a, b));
  const counts = { totalCount: Math.min(ordered.length, cap), totalCountCapped: ordered.length > cap };
  const sent = query.after ?? query.before;
  const cursor = sent === undefined ? undefined : readSubscriberCursor(sent);
  const position = cursor && cursorPosition(cursor, orderBy, (id) => live.find((s) => s._id === id));
  if (sent !== undefined && !position) return ok({ data: [], next: null, previous: null, ...counts });
  /** Where a row lies against the cursor's place in the page's order (0: the cursor's row, still there). */
  const against = (s: Subscriber) => sign * comparePositions(positionOf(s, orderBy), position as CursorPosition);
  let start = 0;
  let end = Math.min(limit, ordered.length);
  if (position && query.after !== undefined) {
    start = ordered.findIndex((s) => against(s) > 0 || (includeCursor && against(s) === 0));
    if (start < 0) start = ordered.length;
    end = Math.min(start + limit, ordered.length);
  } else if (position) {
    const ahead = ordered.findIndex((s) => against(s) > 0 || (!includeCursor && against(s) === 0));
    end = ahead < 0 ? ordered.length : ahead;
    start = Math.max(0, end - limit);
  }
  const page = ordered.slice(start, end);
  const first = page[0];
  const last = page.at(-1);
  return ok({
    data: structuredClone(page),
    next: last && end < ordered.length ? subscriberCursorOf(last, orderBy) : null,
    previous: first && start > 0 ? subscriberCursorOf(first, orderBy) : null,
    ...counts,
  });
}

/** The refusal a PATCH body gets before any row is read (what the spec's schema cannot say: a time zone), if any. */
export function patchRefusal(body: PatchSubscriberRequest): Refusal | undefined {
  return refusalOf("patchSubscriber", { query: {}, path: {}, body }, { now: new Date() });
}

/** The fields of a PATCH body whose value differs from the subscriber's (null clears; absent keeps). */
export function patchChanges(subscriber: Subscriber, body: PatchSubscriberRequest): Partial<Subscriber> {
  const changed = Object.entries(body).filter(
    ([field, value]) =>
      value !== undefined && canonicalJson(subscriber[field as keyof Subscriber]) !== canonicalJson(value),
  );
  return structuredClone(Object.fromEntries(changed)) as Partial<Subscriber>;
}

/**
 * A PATCH of the live subscriber with this `subscriberId`: the given fields replace the stored ones (null clears),
 * the others stay; a real change bumps `__v` by one and sets `updatedAt` to `now` (milliseconds, as stored), a no-op
 * changes neither. Returns the subscriber after the patch (a new object: the array is left as it is) and whether it
 * changed, or the refusal (an invalid time zone 422, an unknown subscriber 404).
 */
export function patchSubscriber(
  subscribers: readonly Subscriber[],
  subscriberId: string,
  body: PatchSubscriberRequest,
  now: Date = new Date(),
): Answer<Subscriber> & { changed?: boolean } {
  const refused = patchRefusal(body);
  if (refused) return refused;
  const subscriber = subscribers.find((s) => s.subscriberId === subscriberId && !s.deleted);
  if (!subscriber) {
    return { status: 404, example: "SubscriberNotFound", message: messages.subscriberNotFound(subscriberId) };
  }
  const changes = patchChanges(subscriber, body);
  if (Object.keys(changes).length === 0) return { ...ok(structuredClone(subscriber)), changed: false };
  const patched: Subscriber = {
    ...structuredClone(subscriber),
    ...changes,
    __v: subscriber.__v + 1,
    updatedAt: now.toISOString(),
  };
  return { ...ok(patched), changed: true };
}
