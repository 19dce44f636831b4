/**
 * TanStack Query options for React (`@tanstack/react-query` 5): the framework-neutral options of `/query`, handed to
 * React Query's `queryOptions`, `infiniteQueryOptions` and `mutationOptions` so that each key carries its data's type
 * and each option's `error` is the operation's `OperationError` without a cast. `@tanstack/react-query` is an optional
 * peer dependency: only this entry needs it (`/vue-query` and `/svelte-query` are the same for their frameworks).
 *
 *   const queries = createQueries(api);
 *   const { data } = useInfiniteQuery(queries.searchSubscribersInfinite({ email: "@example.com" }));
 *   const rename = useMutation({ ...queries.patchSubscriber(), onSuccess: () => client.invalidateQueries({ queryKey: queries.keys.subscribers() }) });
 *
 * `query.error?.statusCode === 422` gives `query.error.body.errors`, `query.error?.kind === "unexpected"` is an answer
 * that is not the contract's (a proxy's page), `query.error?.retryAfter` the seconds a 429 or 503 asks to wait.
 * `retryPolicy()` retries as those answers ask.
 */
import { type InfiniteData, infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import type {
  ApiClient,
  ListNotificationsQuery,
  Notification,
  OperationError,
  SearchSubscribersQuery,
  Subscriber,
} from "./index.js";
import {
  createQueryOptions,
  type ListKey,
  type ListPagesKey,
  type ListPagesQuery,
  type NotificationKey,
  type NotificationsPage,
  type PatchSubscriberVariables,
  type QueryKeys,
  type SearchKey,
  type SearchPage,
  type SearchPagesKey,
  type SearchPagesQuery,
} from "./query.js";

export {
  isRetryable,
  type PatchSubscriberVariables,
  queryKeys,
  type RetryOptions,
  retryPolicy,
} from "./query.js";

export function createQueries(api: ApiClient) {
  const options = createQueryOptions(api);
  return {
    keys: options.keys as QueryKeys,

    /** One page of a subscriber search. */
    searchSubscribers: (query: SearchSubscribersQuery = {}) =>
      queryOptions<SearchPage, OperationError<"searchSubscribers">, SearchPage, SearchKey>(
        options.searchSubscribers(query),
      ),

    /** Every page of a subscriber search, cursor after cursor: `fetchNextPage()` follows `next` until it is null. */
    searchSubscribersInfinite: (query: SearchPagesQuery = {}) =>
      infiniteQueryOptions<
        SearchPage,
        OperationError<"searchSubscribers">,
        InfiniteData<SearchPage, string | undefined>,
        SearchPagesKey,
        string | undefined
      >(options.searchSubscribersInfinite(query)),

    /** One page of notifications. */
    listNotifications: (query: ListNotificationsQuery = {}) =>
      queryOptions<NotificationsPage, OperationError<"listNotifications">, NotificationsPage, ListKey>(
        options.listNotifications(query),
      ),

    /** Every page of notifications from page 0: `fetchNextPage()` asks for the next page while `hasMore`. */
    listNotificationsInfinite: (query: ListPagesQuery = {}) =>
      infiniteQueryOptions<
        NotificationsPage,
        OperationError<"listNotifications">,
        InfiniteData<NotificationsPage, number>,
        ListPagesKey,
        number
      >(options.listNotificationsInfinite(query)),

    /** One notification, whole. */
    notification: (notificationId: string) =>
      queryOptions<Notification, OperationError<"getNotification">, Notification, NotificationKey>(
        options.notification(notificationId),
      ),

    /**
     * The PATCH of a subscriber; invalidate `keys.subscribers()` on success to refresh searches. Each `mutate` call
     * sends one idempotency key, the same on each of its retries, so a retry of a PATCH that was applied gets its first
     * answer instead of applying it twice.
     */
    patchSubscriber: () =>
      mutationOptions<Subscriber, OperationError<"patchSubscriber">, PatchSubscriberVariables>(
        options.patchSubscriber(),
      ),
  };
}
