/**
 * TanStack Query options for the contract's operations, on the typed client: query keys to invalidate by,
 * `queryOptions` for each read, `infiniteQueryOptions` that page the way each list pages (a search by its `next`
 * cursor, a notification list by page number), and `mutationOptions` for the PATCH. `@tanstack/react-query` is an
 * optional peer dependency: only this entry needs it.
 *
 *   const queries = createQueries(api);
 *   const { data } = useInfiniteQuery(queries.searchSubscribersInfinite({ email: "@example.com" }));
 *   const rename = useMutation({ ...queries.patchSubscriber(), onSuccess: () => client.invalidateQueries({ queryKey: queries.keys.subscribers() }) });
 *
 * Each option's `error` is the operation's `OperationError` without a cast: `query.error?.statusCode === 422` gives
 * `query.error.body.errors`, `query.error?.kind === "unexpected"` is an answer that is not the contract's (a proxy's
 * page), `query.error?.retryAfter` the seconds a 429 or 503 asks to wait. `retryPolicy()` retries as those answers ask.
 */
import { type InfiniteData, infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { newIdempotencyKey } from "./idempotency-key.js";
import {
  type ApiClient,
  ApiRequestError,
  dataOrThrow,
  type ListNotificationsQuery,
  type ListNotificationsResponse,
  type Notification,
  type OperationError,
  type PatchSubscriberRequest,
  type SearchSubscribersQuery,
  type SearchSubscribersResponse,
  type Subscriber,
} from "./index.js";

type SearchPagesQuery = Omit<SearchSubscribersQuery, "after" | "before">;
type ListPagesQuery = Omit<ListNotificationsQuery, "page">;

/**
 * The query keys, by resource: `keys.subscribers()` covers every subscriber query (searches, their pages), and each
 * key without its query covers every query of its kind (`keys.searchSubscribersInfinite()`: every infinite search,
 * whatever its filters), since TanStack Query matches keys by prefix.
 */
export const queryKeys = {
  all: () => ["novu-query"] as const,
  subscribers: () => ["novu-query", "subscribers"] as const,
  searchSubscribers: (query?: SearchSubscribersQuery) =>
    query === undefined
      ? (["novu-query", "subscribers", "search"] as const)
      : (["novu-query", "subscribers", "search", query] as const),
  searchSubscribersInfinite: (query?: SearchPagesQuery) =>
    query === undefined
      ? (["novu-query", "subscribers", "search-pages"] as const)
      : (["novu-query", "subscribers", "search-pages", query] as const),
  notifications: () => ["novu-query", "notifications"] as const,
  listNotifications: (query?: ListNotificationsQuery) =>
    query === undefined
      ? (["novu-query", "notifications", "list"] as const)
      : (["novu-query", "notifications", "list", query] as const),
  listNotificationsInfinite: (query?: ListPagesQuery) =>
    query === undefined
      ? (["novu-query", "notifications", "list-pages"] as const)
      : (["novu-query", "notifications", "list-pages", query] as const),
  notification: (notificationId: string) => ["novu-query", "notifications", "detail", notificationId] as const,
};

export interface RetryOptions {
  /** Retries after the first failure (default 3). */
  retries?: number;
  /** The first wait when the answer names none, doubling with each retry (default 1,000 ms). */
  baseDelayMs?: number;
  /** The longest wait, `Retry-After` included (default 30,000 ms). */
  maxDelayMs?: number;
}

/** Whether a retry can help: no answer, a 429, or a 5xx. Never another 4xx, nor an error that is not the API's. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof ApiRequestError)) return false;
  if (error.status === undefined) return true;
  return error.status === 429 || error.status >= 500;
}

/**
 * `retry` and `retryDelay` for TanStack Query: retries what `isRetryable` says can help, waiting the answer's
 * `Retry-After` when it gives one (429, 503) and doubling from `baseDelayMs` otherwise. Spread it into a query, or into
 * `new QueryClient({ defaultOptions: { queries: retryPolicy() } })`.
 */
export function retryPolicy(options: RetryOptions = {}) {
  const { retries = 3, baseDelayMs = 1000, maxDelayMs = 30_000 } = options;
  return {
    retry: (failureCount: number, error: unknown) => failureCount < retries && isRetryable(error),
    retryDelay: (failureCount: number, error: unknown) => {
      const asked = error instanceof ApiRequestError ? error.retryAfter : undefined;
      return Math.min(asked === undefined ? baseDelayMs * 2 ** failureCount : asked * 1000, maxDelayMs);
    },
  };
}

export interface PatchSubscriberVariables {
  subscriberId: string;
  body: PatchSubscriberRequest;
  /** Sent as `idempotency-key`; the client makes a fresh one per PATCH otherwise. */
  idempotencyKey?: string;
}

type SearchKey = ["novu-query", "subscribers", "search", SearchSubscribersQuery];
type SearchPagesKey = ["novu-query", "subscribers", "search-pages", SearchPagesQuery];
type ListKey = ["novu-query", "notifications", "list", ListNotificationsQuery];
type ListPagesKey = ["novu-query", "notifications", "list-pages", ListPagesQuery];
type NotificationKey = readonly ["novu-query", "notifications", "detail", string];

/** One key per `mutate` call: TanStack Query hands the same variables to each retry of it. */
const keysOfCalls = new WeakMap<PatchSubscriberVariables, string>();

function idempotencyKeyOf(variables: PatchSubscriberVariables): string {
  if (variables.idempotencyKey !== undefined) return variables.idempotencyKey;
  let key = keysOfCalls.get(variables);
  if (key === undefined) {
    key = newIdempotencyKey();
    keysOfCalls.set(variables, key);
  }
  return key;
}

export function createQueries(api: ApiClient) {
  return {
    keys: queryKeys,

    /** One page of a subscriber search. */
    searchSubscribers: (query: SearchSubscribersQuery = {}) =>
      queryOptions<
        SearchSubscribersResponse,
        OperationError<"searchSubscribers">,
        SearchSubscribersResponse,
        SearchKey
      >({
        queryKey: queryKeys.searchSubscribers(query) as SearchKey,
        queryFn: ({ signal }) =>
          dataOrThrow("searchSubscribers", api.GET("/v2/subscribers", { params: { query }, signal })),
      }),

    /** Every page of a subscriber search, cursor after cursor: `fetchNextPage()` follows `next` until it is null. */
    searchSubscribersInfinite: (query: SearchPagesQuery = {}) =>
      infiniteQueryOptions<
        SearchSubscribersResponse,
        OperationError<"searchSubscribers">,
        InfiniteData<SearchSubscribersResponse, string | undefined>,
        SearchPagesKey,
        string | undefined
      >({
        queryKey: queryKeys.searchSubscribersInfinite(query) as SearchPagesKey,
        initialPageParam: undefined,
        queryFn: ({ pageParam, signal }) =>
          dataOrThrow(
            "searchSubscribers",
            api.GET("/v2/subscribers", {
              params: { query: pageParam === undefined ? query : { ...query, after: pageParam } },
              signal,
            }),
          ),
        getNextPageParam: (last) => last.next ?? undefined,
      }),

    /** One page of notifications. */
    listNotifications: (query: ListNotificationsQuery = {}) =>
      queryOptions<ListNotificationsResponse, OperationError<"listNotifications">, ListNotificationsResponse, ListKey>({
        queryKey: queryKeys.listNotifications(query) as ListKey,
        queryFn: ({ signal }) =>
          dataOrThrow("listNotifications", api.GET("/v1/notifications", { params: { query }, signal })),
      }),

    /** Every page of notifications from page 0: `fetchNextPage()` asks for the next page while `hasMore`. */
    listNotificationsInfinite: (query: ListPagesQuery = {}) =>
      infiniteQueryOptions<
        ListNotificationsResponse,
        OperationError<"listNotifications">,
        InfiniteData<ListNotificationsResponse, number>,
        ListPagesKey,
        number
      >({
        queryKey: queryKeys.listNotificationsInfinite(query) as ListPagesKey,
        initialPageParam: 0,
        queryFn: ({ pageParam, signal }) =>
          dataOrThrow(
            "listNotifications",
            api.GET("/v1/notifications", { params: { query: { ...query, page: pageParam } }, signal }),
          ),
        getNextPageParam: (last) => (last.hasMore ? last.page + 1 : undefined),
      }),

    /** One notification, whole. */
    notification: (notificationId: string) =>
      queryOptions<Notification, OperationError<"getNotification">, Notification, NotificationKey>({
        queryKey: queryKeys.notification(notificationId),
        queryFn: ({ signal }) =>
          dataOrThrow(
            "getNotification",
            api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId } }, signal }),
          ),
      }),

    /**
     * The PATCH of a subscriber; invalidate `keys.subscribers()` on success to refresh searches. Each `mutate` call
     * sends one idempotency key, the same on each of its retries (`retry: retryPolicy().retry`), so a retry of a PATCH
     * that was applied gets its first answer instead of applying it twice.
     */
    patchSubscriber: () =>
      mutationOptions<Subscriber, OperationError<"patchSubscriber">, PatchSubscriberVariables>({
        mutationKey: ["novu-query", "subscribers", "patch"],
        mutationFn: (variables) =>
          dataOrThrow(
            "patchSubscriber",
            api.PATCH("/v2/subscribers/{subscriberId}", {
              params: { path: { subscriberId: variables.subscriberId } },
              body: variables.body,
              headers: { "idempotency-key": idempotencyKeyOf(variables) },
            }),
          ),
      }),
  };
}
