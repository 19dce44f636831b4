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
 * Errors reject with `ApiRequestError`, whose `body` is the contract's error body (narrow it on `statusCode`).
 */
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import {
  type ApiClient,
  ApiRequestError,
  type ErrorDto,
  type ListNotificationsQuery,
  type ListNotificationsResponse,
  type Notification,
  type PatchSubscriberRequest,
  type SearchSubscribersQuery,
  type SearchSubscribersResponse,
  type Subscriber,
  type ValidationErrorDto,
} from "./index.js";

type SearchQuery = Omit<SearchSubscribersQuery, "after" | "before">;
type ListQuery = Omit<ListNotificationsQuery, "page">;

/** The data of an answer, or its error body thrown as an ApiRequestError. */
async function dataOf<T>(answer: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await answer;
  if (data === undefined) throw new ApiRequestError(response.status, error as ErrorDto | ValidationErrorDto);
  return data;
}

/** The query keys, by resource: invalidate `keys.subscribers()` after a change to a subscriber, say. */
export const queryKeys = {
  all: () => ["novu-query"] as const,
  subscribers: () => ["novu-query", "subscribers"] as const,
  searchSubscribers: (query: SearchSubscribersQuery = {}) => ["novu-query", "subscribers", "search", query] as const,
  searchSubscribersInfinite: (query: SearchQuery = {}) => ["novu-query", "subscribers", "search-pages", query] as const,
  notifications: () => ["novu-query", "notifications"] as const,
  listNotifications: (query: ListNotificationsQuery = {}) => ["novu-query", "notifications", "list", query] as const,
  listNotificationsInfinite: (query: ListQuery = {}) => ["novu-query", "notifications", "list-pages", query] as const,
  notification: (notificationId: string) => ["novu-query", "notifications", "detail", notificationId] as const,
};

export interface PatchSubscriberVariables {
  subscriberId: string;
  body: PatchSubscriberRequest;
  /** Sent as `idempotency-key`; the client makes a fresh one per PATCH otherwise. */
  idempotencyKey?: string;
}

export function createQueries(api: ApiClient) {
  return {
    keys: queryKeys,

    /** One page of a subscriber search. */
    searchSubscribers: (query: SearchSubscribersQuery = {}) =>
      queryOptions({
        queryKey: queryKeys.searchSubscribers(query),
        queryFn: ({ signal }) =>
          dataOf<SearchSubscribersResponse>(api.GET("/v2/subscribers", { params: { query }, signal })),
      }),

    /** Every page of a subscriber search, cursor after cursor: `fetchNextPage()` follows `next` until it is null. */
    searchSubscribersInfinite: (query: SearchQuery = {}) =>
      infiniteQueryOptions({
        queryKey: queryKeys.searchSubscribersInfinite(query),
        initialPageParam: undefined as string | undefined,
        queryFn: ({ pageParam, signal }) =>
          dataOf<SearchSubscribersResponse>(
            api.GET("/v2/subscribers", {
              params: { query: pageParam === undefined ? query : { ...query, after: pageParam } },
              signal,
            }),
          ),
        getNextPageParam: (last) => last.next ?? undefined,
      }),

    /** One page of notifications. */
    listNotifications: (query: ListNotificationsQuery = {}) =>
      queryOptions({
        queryKey: queryKeys.listNotifications(query),
        queryFn: ({ signal }) =>
          dataOf<ListNotificationsResponse>(api.GET("/v1/notifications", { params: { query }, signal })),
      }),

    /** Every page of notifications from page 0: `fetchNextPage()` asks for the next page while `hasMore`. */
    listNotificationsInfinite: (query: ListQuery = {}) =>
      infiniteQueryOptions({
        queryKey: queryKeys.listNotificationsInfinite(query),
        initialPageParam: 0,
        queryFn: ({ pageParam, signal }) =>
          dataOf<ListNotificationsResponse>(
            api.GET("/v1/notifications", { params: { query: { ...query, page: pageParam } }, signal }),
          ),
        getNextPageParam: (last) => (last.hasMore ? last.page + 1 : undefined),
      }),

    /** One notification, whole. */
    notification: (notificationId: string) =>
      queryOptions({
        queryKey: queryKeys.notification(notificationId),
        queryFn: ({ signal }) =>
          dataOf<Notification>(
            api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId } }, signal }),
          ),
      }),

    /** The PATCH of a subscriber; invalidate `keys.subscribers()` on success to refresh searches. */
    patchSubscriber: () =>
      mutationOptions({
        mutationKey: ["novu-query", "subscribers", "patch"],
        mutationFn: ({ subscriberId, body, idempotencyKey }: PatchSubscriberVariables) =>
          dataOf<Subscriber>(
            api.PATCH("/v2/subscribers/{subscriberId}", {
              params: { path: { subscriberId } },
              body,
              ...(idempotencyKey !== undefined && { headers: { "idempotency-key": idempotencyKey } }),
            }),
          ),
      }),
  };
}
