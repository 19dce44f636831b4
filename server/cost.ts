/**
 * Which requests are expensive for this server's store, so that they need one of the few expensive admission turns
 * (MAX_EXPENSIVE_IN_FLIGHT): a substring filter (subscribers' `email`, `name`, `phone`; the notifications' `search`),
 * which reads an index's posting lists and rows by the thousand, and an offset page that skips `deepOffset` rows or
 * more.
 */
import type { Cost, HandlerInput, OperationId } from "@novu-query/express";

export function costOf<K extends OperationId>(id: K, input: HandlerInput<K>, deepOffset: number): Cost {
  const query = input.query as Record<string, unknown>;
  if (id === "searchSubscribers") {
    return query.email !== undefined || query.name !== undefined || query.phone !== undefined ? "expensive" : "cheap";
  }
  if (id === "listNotifications") {
    const offset = Number(query.page ?? 0) * Number(query.limit ?? 10);
    return query.search !== undefined || offset >= deepOffset ? "expensive" : "cheap";
  }
  return "cheap";
}
