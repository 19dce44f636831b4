/**
 * Query options for the contract's operations, for any TanStack Query adapter and for none: plain objects with the
 * fields every adapter's `queryOptions`, `infiniteQueryOptions` and `mutationOptions` take (`queryKey`, `queryFn`,
 * `initialPageParam`, `getNextPageParam`, `mutationKey`, `mutationFn`), the query keys to invalidate by, and the retry
 * policy the API's answers ask for. This entry imports no framework: `/react-query`, `/vue-query` and `/svelte-query`
 * hand these same objects to their adapter so that its types (the key's data tag, the error) are the operation's;
 * with Solid, Angular or a query layer of your own, spread them in as they are.
 *
 *   const queries = createQueryOptions(api);
 *   queryClient.fetchQuery(queries.notification(id));        // any QueryClient: @tanstack/query-core's or an adapter's
 *
 * Each `queryFn` and `mutationFn` throws the operation's `OperationError` (`dataOrThrow`): `error.statusCode === 422`
 * gives `error.body.errors`, `error.kind === "unexpected"` an answer that is not the contract's, `error.retryAfter` the
 * seconds a 429 or 503 asks to wait.
 */
import { newIdempotencyKey } from "./idempotency-key.js";
import {
  type ApiClient,
  ApiRequestError,
  dataOrThrow,
  type ListNotificationsQuery,
  type ListNotificationsResponse,
  type Notification,
  type PatchSubscriberRequest,
  type SearchSubscribersQuery,
  type SearchSubscribersResponse,
  type Subscriber,
} from "./index.js";

/**
 * A page of each list, named: the generated types are aliases that declarations spell out in full wherever they
 * appear (in each entry, five times per option), and an interface is referred to by its name.
 */
export interface SearchPage extends SearchSubscribersResponse {}
export interface NotificationsPage extends ListNotificationsResponse {}

/** A search's filters without its cursor: the infinite search pages by `next`. */
export type SearchPagesQuery = Omit<SearchSubscribersQuery, "after" | "before">;
/** A list's filters without its page: the infinite list pages by number. */
export type ListPagesQuery = Omit<ListNotificationsQuery, "page">;

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

/** The type of `queryKeys`, named so that the entries' declarations refer to it rather than spell it out. */
export type QueryKeys = typeof queryKeys;

export type SearchKey = ["novu-query", "subscribers", "search", SearchSubscribersQuery];
export type SearchPagesKey = ["novu-query", "subscribers", "search-pages", SearchPagesQuery];
export type ListKey = ["novu-query", "notifications", "list", ListNotificationsQuery];
export type ListPagesKey = ["novu-query", "notifications", "list-pages", ListPagesQuery];
export type NotificationKey = readonly ["novu-query", "notifications", "detail", string];
export type PatchKey = ["novu-query", "subscribers", "patch"];

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

/** An operation's options function with its client bound: `(api, query) => options` as `(query) => options`. */
export type Bound<F> = F extends (api: ApiClient, ...rest: infer Rest) => infer Options
  ? (...rest: Rest) => Options
  : never;

/** What a `queryFn` is handed (every adapter's context has at least this). */
export interface QueryContext {
  signal: AbortSignal;
}

/** One page of a subscriber search. */
export function searchSubscribersOptions(api: ApiClient, query: SearchSubscribersQuery = {}) {
  return {
    queryKey: queryKeys.searchSubscribers(query) as SearchKey,
    queryFn: ({ signal }: QueryContext): Promise<SearchPage> =>
      dataOrThrow("searchSubscribers", api.GET("/v2/subscribers", { params: { query }, signal })),
  };
}

/** Every page of a subscriber search, cursor after cursor: `fetchNextPage()` follows `next` until it is null. */
export function searchSubscribersInfiniteOptions(api: ApiClient, query: SearchPagesQuery = {}) {
  return {
    queryKey: queryKeys.searchSubscribersInfinite(query) as SearchPagesKey,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }: QueryContext & { pageParam: string | undefined }): Promise<SearchPage> =>
      dataOrThrow(
        "searchSubscribers",
        api.GET("/v2/subscribers", {
          params: { query: pageParam === undefined ? query : { ...query, after: pageParam } },
          signal,
        }),
      ),
    getNextPageParam: (last: SearchPage): string | undefined => last.next ?? undefined,
  };
}

/** One page of notifications. */
export function listNotificationsOptions(api: ApiClient, query: ListNotificationsQuery = {}) {
  return {
    queryKey: queryKeys.listNotifications(query) as ListKey,
    queryFn: ({ signal }: QueryContext): Promise<NotificationsPage> =>
      dataOrThrow("listNotifications", api.GET("/v1/notifications", { params: { query }, signal })),
  };
}

/** Every page of notifications from page 0: `fetchNextPage()` asks for the next page while `hasMore`. */
export function listNotificationsInfiniteOptions(api: ApiClient, query: ListPagesQuery = {}) {
  return {
    queryKey: queryKeys.listNotificationsInfinite(query) as ListPagesKey,
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }: QueryContext & { pageParam: number }): Promise<NotificationsPage> =>
      dataOrThrow(
        "listNotifications",
        api.GET("/v1/notifications", { params: { query: { ...query, page: pageParam } }, signal }),
      ),
    getNextPageParam: (last: NotificationsPage): number | undefined => (last.hasMore ? last.page + 1 : undefined),
  };
}

/** One notification, whole. */
export function notificationOptions(api: ApiClient, notificationId: string) {
  return {
    queryKey: queryKeys.notification(notificationId) as NotificationKey,
    queryFn: ({ signal }: QueryContext): Promise<Notification> =>
      dataOrThrow(
        "getNotification",
        api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId } }, signal }),
      ),
  };
}

/**
 * The PATCH of a subscriber; invalidate `keys.subscribers()` on success to refresh searches. Each `mutate` call sends
 * one idempotency key, the same on each of its retries (`retry: retryPolicy().retry`), so a retry of a PATCH that was
 * applied gets its first answer instead of applying it twice.
 */
export function patchSubscriberOptions(api: ApiClient) {
  return {
    mutationKey: ["novu-query", "subscribers", "patch"] as PatchKey,
    mutationFn: (variables: PatchSubscriberVariables): Promise<Subscriber> =>
      dataOrThrow(
        "patchSubscriber",
        api.PATCH("/v2/subscribers/{subscriberId}", {
          params: { path: { subscriberId: variables.subscriberId } },
          body: variables.body,
          headers: { "idempotency-key": idempotencyKeyOf(variables) },
        }),
      ),
  };
}

/** Options functions by name, each taking the client first. */
type OptionsFunctions = Record<string, (api: ApiClient, ...rest: never[]) => unknown>;

/** The query keys and each options function with the client bound: what every entry's `createQueries` returns. */
export type BoundOptions<Functions extends OptionsFunctions> = { keys: QueryKeys } & {
  [Name in keyof Functions]: Bound<Functions[Name]>;
};

/** Binds the client to each options function, and adds the keys: `createQueryOptions` and each `createQueries`. */
export function bindOptions<Functions extends OptionsFunctions>(
  api: ApiClient,
  functions: Functions,
): BoundOptions<Functions> {
  const bound: Record<string, unknown> = { keys: queryKeys };
  for (const [name, options] of Object.entries(functions)) bound[name] = (...rest: never[]) => options(api, ...rest);
  return bound as BoundOptions<Functions>;
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
export type QueryOptions = BoundOptions<typeof operations>;

/**
 * Every operation's options bound to one client, by the names `/react-query`'s `createQueries` uses. Each is also
 * exported on its own (`searchSubscribersInfiniteOptions(api, query)`, ...): a bundle that imports one carries only
 * that one.
 */
export function createQueryOptions(api: ApiClient): QueryOptions {
  return bindOptions(api, operations);
}
