/**
 * A subscriber search cursor (`after`, `before`, and the `next` and `previous` that feed them). It is the `_id` of a
 * subscriber, Novu's form, which a client may build from any item; the walk goes on from where that subscriber is now.
 * In an `updatedAt` order a subscriber moves when it changes, so there the cursor also carries the place it marks,
 * `<_id>_<updatedAt in milliseconds since 1970>` (digits, so that a URL needs no escape for it): a changed cursor row
 * neither ends nor restarts the walk, and rows that move past the cursor during a walk are met where they now are.
 * See D45.
 */
import type { components } from "../../generated/schema.js";

type Subscriber = components["schemas"]["Subscriber"];
export type SubscriberOrderBy = "_id" | "createdAt" | "updatedAt";

/** What a cursor names: a subscriber, and, in an `updatedAt` order, the position it had there. */
export interface SubscriberCursor {
  id: string;
  updatedAt?: string;
}

const separator = "_";

/** The cursor of a subscriber on a page in this order: its `_id`, with its `updatedAt` in an `updatedAt` order. */
export function subscriberCursorOf(subscriber: Pick<Subscriber, "_id" | "updatedAt">, orderBy: SubscriberOrderBy) {
  return orderBy === "updatedAt" ? `${subscriber._id}${separator}${Date.parse(subscriber.updatedAt)}` : subscriber._id;
}

/**
 * A cursor as sent (the spec's pattern admits its form), or undefined when the time it carries is no instant of the
 * years 0000 to 9999 (the `updatedAt` form's range).
 */
export function readSubscriberCursor(cursor: string): SubscriberCursor | undefined {
  const [id = "", carried] = cursor.split(separator);
  if (carried === undefined) return { id };
  const instant = new Date(Number(carried));
  if (!/^-?[0-9]+$/.test(carried) || Number.isNaN(instant.getTime())) return undefined;
  const updatedAt = instant.toISOString();
  return /^[0-9]{4}-/.test(updatedAt) ? { id, updatedAt } : undefined;
}

/** Why a cursor is refused (a 422 entry), or undefined. */
export function subscriberCursorProblem(cursor: string): string | undefined {
  return readSubscriberCursor(cursor) ? undefined : "must carry a time within the years 0000 to 9999";
}

/** A place in an order: the order field's value (the `_id` itself in `_id` order) and the `_id` that breaks ties. */
export interface CursorPosition {
  key: string;
  id: string;
}

/** A subscriber's place in this order. */
export function positionOf(
  subscriber: Pick<Subscriber, "_id" | "createdAt" | "updatedAt">,
  orderBy: SubscriberOrderBy,
) {
  return { key: orderBy === "_id" ? subscriber._id : subscriber[orderBy], id: subscriber._id };
}

/**
 * The place a cursor marks in this order: the one it carries in an `updatedAt` order, the named subscriber's own
 * otherwise (found by `find`, live subscribers of the caller's environment only); undefined when it names none.
 */
export function cursorPosition(
  cursor: SubscriberCursor,
  orderBy: SubscriberOrderBy,
  find: (id: string) => Pick<Subscriber, "_id" | "createdAt" | "updatedAt"> | undefined,
): CursorPosition | undefined {
  if (orderBy === "updatedAt" && cursor.updatedAt !== undefined) return { key: cursor.updatedAt, id: cursor.id };
  const found = find(cursor.id);
  return found && positionOf(found, orderBy);
}

/** Where a position lies against another in ascending order: negative before, 0 the same place, positive after. */
export function comparePositions(a: CursorPosition, b: CursorPosition): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
