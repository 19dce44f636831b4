/**
 * TanStack Query options for Vue (`@tanstack/vue-query` 5): the framework-neutral options of `/query`, handed to
 * Vue Query's `queryOptions`, `infiniteQueryOptions` and `mutationOptions`, so that each key carries its data's type
 * and each option's `error` is the operation's `OperationError` without a cast. `@tanstack/vue-query` is an optional
 * peer dependency: only this entry needs it. The same options as `/react-query`, by the same names.
 *
 *   const queries = createQueries(api);
 *   const pages = useInfiniteQuery(queries.searchSubscribersInfinite({ email: "@example.com" }));
 *   const rename = useMutation({ ...queries.patchSubscriber(), onSuccess: () => void client.invalidateQueries({ queryKey: queries.keys.subscribers() }) });
 *
 * Or one operation on its own, so that a bundle carries only it: `useQuery(notificationOptions(api, id))`.
 */
import { type InfiniteData, infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/vue-query";
import type {
  ApiClient,
  ListNotificationsQuery,
  Notification,
  OperationError,
  SearchSubscribersQuery,
  Subscriber,
} from "./index.js";
import type {
  BoundOptions,
  ListKey,
  ListPagesKey,
  ListPagesQuery,
  NotificationKey,
  NotificationsPage,
  PatchSubscriberVariables,
  SearchKey,
  SearchPage,
  SearchPagesKey,
  SearchPagesQuery,
} from "./query.js";
import * as neutral from "./query.js";

export {
  isRetryable,
  type PatchSubscriberVariables,
  queryKeys,
  type RetryOptions,
  retryPolicy,
} from "./query.js";

/** One page of a subscriber search. */
export function searchSubscribersOptions(api: ApiClient, query?: SearchSubscribersQuery) {
  return queryOptions<SearchPage, OperationError<"searchSubscribers">, SearchPage, SearchKey>(
    neutral.searchSubscribersOptions(api, query),
  );
}

/** Every page of a subscriber search, cursor after cursor: `fetchNextPage()` follows `next` until it is null. */
export function searchSubscribersInfiniteOptions(api: ApiClient, query?: SearchPagesQuery) {
  return infiniteQueryOptions<
    SearchPage,
    OperationError<"searchSubscribers">,
    InfiniteData<SearchPage, string | undefined>,
    SearchPagesKey,
    string | undefined
  >(neutral.searchSubscribersInfiniteOptions(api, query));
}

/** One page of notifications. */
export function listNotificationsOptions(api: ApiClient, query?: ListNotificationsQuery) {
  return queryOptions<NotificationsPage, OperationError<"listNotifications">, NotificationsPage, ListKey>(
    neutral.listNotificationsOptions(api, query),
  );
}

/** Every page of notifications from page 0: `fetchNextPage()` asks for the next page while `hasMore`. */
export function listNotificationsInfiniteOptions(api: ApiClient, query?: ListPagesQuery) {
  return infiniteQueryOptions<
    NotificationsPage,
    OperationError<"listNotifications">,
    InfiniteData<NotificationsPage, number>,
    ListPagesKey,
    number
  >(neutral.listNotificationsInfiniteOptions(api, query));
}

/** One notification, whole. */
export function notificationOptions(api: ApiClient, notificationId: string) {
  return queryOptions<Notification, OperationError<"getNotification">, Notification, NotificationKey>(
    neutral.notificationOptions(api, notificationId),
  );
}

/**
 * The PATCH of a subscriber; invalidate `keys.subscribers()` on success to refresh searches. Each `mutate` call
 * sends one idempotency key, the same on each of its retries, so a retry of a PATCH that was applied gets its first
 * answer instead of applying it twice.
 */
export function patchSubscriberOptions(api: ApiClient) {
  return mutationOptions<Subscriber, OperationError<"patchSubscriber">, PatchSubscriberVariables>(
    neutral.patchSubscriberOptions(api),
  );
}

const operations = {
  searchSubscribers: searchSubscribersOptions,
  searchSubscribersInfinite: searchSubscribersInfiniteOptions,
  listNotifications: listNotificationsOptions,
  listNotificationsInfinite: listNotificationsInfiniteOptions,
  notification: notificationOptions,
  patchSubscriber: patchSubscriberOptions,
};

/** Each operation's options with the client bound, and the keys. */
export type Queries = BoundOptions<typeof operations>;

/** Every operation's options bound to one client; each is also exported on its own (above). */
export function createQueries(api: ApiClient): Queries {
  return neutral.bindOptions(api, operations);
}
