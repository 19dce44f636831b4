/**
 * The typed client for the notification query API, on openapi-fetch with the generated `paths`.
 *
 *   const api = createClient({ baseUrl: "http://localhost:4010", apiKey: "..." });
 *   const { data, error } = await api.GET("/v2/subscribers", { params: { query: { limit: 20 } } });
 *   for await (const subscriber of allSubscribers(api, { email: "@example.com" })) { ... }
 */
import createFetchClient, {
  type Client,
  type ClientOptions as FetchClientOptions,
  type FetchResponse,
  type MaybeOptionalInit,
} from "openapi-fetch";
import type { PathsWithMethod, RequiredKeysOf } from "openapi-typescript-helpers";
import type {
  ErrorDto,
  ListNotificationsResponse,
  Notification,
  operations,
  paths,
  SearchSubscribersResponse,
  Subscriber,
  ValidationErrorDto,
} from "../generated/schema.js";
import { newIdempotencyKey } from "./idempotency-key.js";

export * from "../generated/schema.js";
export { newIdempotencyKey } from "./idempotency-key.js";

export interface ClientOptions {
  /** Where the API lives: the reference server, the mock, or any implementation. */
  baseUrl: string;
  /** Sent as `Authorization: ApiKey <apiKey>`. */
  apiKey: string;
  /**
   * A fetch of your own (tests, instrumentation). Default: the global `fetch` as it is at each request, so that mocks
   * that replace it later (MSW's `setupServer().listen()`) see requests of a client made at import time.
   */
  fetch?: FetchClientOptions["fetch"];
  /** Headers sent with every request. */
  headers?: FetchClientOptions["headers"];
}

/** The PATCH body each path's operation declares. */
type PatchBodyOf<Path extends PathsWithMethod<paths, "patch">> =
  MaybeOptionalInit<paths[Path], "patch"> extends { body?: infer Body } ? Body : never;

/**
 * Each field of a PATCH init as it is, but for the body's fields the contract lacks, which become `never`. A body typed
 * with an index signature (`Record<string, unknown>`) names no field, so it is left to the body's own type.
 */
type NoUnknownBodyFields<Init, Body> = {
  [K in keyof Init]: K extends "body"
    ? string extends keyof Init[K]
      ? unknown
      : { [F in keyof Init[K]]: F extends keyof NonNullable<Body> ? unknown : never }
    : unknown;
};

/** openapi-fetch's final init parameter: optional when nothing in it is required. */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

type PatchAnswer<Path extends PathsWithMethod<paths, "patch">, Init> = Promise<
  FetchResponse<NonNullable<paths[Path]["patch"]>, Init, `${string}/${string}`>
>;

/**
 * openapi-fetch's PATCH infers its options as a type parameter, so TypeScript does not check an object literal for
 * fields the contract lacks. Ours constrains that parameter: `body: { locale: "en", nope: 1 }` does not compile. Its
 * second signature is openapi-fetch's own, so that tools taking an openapi-fetch `Client` (openapi-react-query's
 * `createClient`) accept this client as it is; `this: never` keeps calls from falling through to it.
 */
interface ExactPatch {
  <
    Path extends PathsWithMethod<paths, "patch">,
    Init extends MaybeOptionalInit<paths[Path], "patch"> & NoUnknownBodyFields<Init, PatchBodyOf<Path>>,
  >(
    url: Path,
    ...init: InitParam<Init>
  ): PatchAnswer<Path, Init>;
  <Path extends PathsWithMethod<paths, "patch">, Init extends MaybeOptionalInit<paths[Path], "patch">>(
    this: never,
    url: Path,
    ...init: InitParam<Init>
  ): PatchAnswer<Path, Init>;
}

/** The typed client: openapi-fetch's, with a PATCH that refuses body fields the contract lacks. */
export type ApiClient = Omit<Client<paths>, "PATCH"> & { PATCH: ExactPatch };

export type SearchSubscribersQuery = NonNullable<operations["searchSubscribers"]["parameters"]["query"]>;
export type ListNotificationsQuery = NonNullable<operations["listNotifications"]["parameters"]["query"]>;

/**
 * The base URL as fetch needs it. A relative one ("/api") is the page's own origin in a browser; where there is no
 * page (Node: Vitest, Jest), it is `http://localhost`, so that MSW's handlers for "/api" answer it there too.
 */
function absoluteBaseUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  if (!base.startsWith("/")) return base;
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return `${origin && origin !== "null" ? origin : "http://localhost"}${base}`;
}

/** A typed client. PATCH requests get a fresh `idempotency-key` unless you pass one, so retries are safe. */
export function createClient(options: ClientOptions): ApiClient {
  const client = createFetchClient<paths>({
    baseUrl: absoluteBaseUrl(options.baseUrl),
    fetch: options.fetch ?? ((request: Request) => globalThis.fetch(request)),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  client.use({
    onRequest({ request }) {
      request.headers.set("Authorization", `ApiKey ${options.apiKey}`);
      if (request.method === "PATCH" && !request.headers.has("idempotency-key")) {
        request.headers.set("idempotency-key", newIdempotencyKey());
      }
      return request;
    },
  });
  return client;
}

/** An error answer of the API, thrown by the page iterators. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly body: ErrorDto | ValidationErrorDto | undefined;

  constructor(status: number, body: ErrorDto | ValidationErrorDto | undefined) {
    super(body?.message ? `${status}: ${body.message}` : `HTTP ${status}`);
    this.name = "ApiRequestError";
    this.status = status;
    this.body = body;
  }
}

/** Every page of a subscriber search, following `next` until it is null. */
export async function* searchSubscriberPages(
  client: ApiClient,
  query: Omit<SearchSubscribersQuery, "after" | "before"> = {},
): AsyncGenerator<SearchSubscribersResponse> {
  let after: string | undefined;
  do {
    const { data, error, response } = await client.GET("/v2/subscribers", {
      params: { query: { ...query, ...(after ? { after } : {}) } },
    });
    if (!data) throw new ApiRequestError(response.status, error as ErrorDto | undefined);
    yield data;
    after = data.next ?? undefined;
  } while (after);
}

/** Every subscriber a search matches, page after page. */
export async function* allSubscribers(
  client: ApiClient,
  query: Omit<SearchSubscribersQuery, "after" | "before"> = {},
): AsyncGenerator<Subscriber> {
  for await (const page of searchSubscriberPages(client, query)) yield* page.data;
}

/** Every page of a notification list, from `page` (default 0) until `hasMore` is false. */
export async function* listNotificationPages(
  client: ApiClient,
  query: ListNotificationsQuery = {},
): AsyncGenerator<ListNotificationsResponse> {
  let page = query.page ?? 0;
  while (true) {
    const { data, error, response } = await client.GET("/v1/notifications", { params: { query: { ...query, page } } });
    if (!data) throw new ApiRequestError(response.status, error as ErrorDto | undefined);
    yield data;
    if (!data.hasMore) return;
    page += 1;
  }
}

/** Every notification a list matches, page after page. */
export async function* allNotifications(
  client: ApiClient,
  query: ListNotificationsQuery = {},
): AsyncGenerator<Notification> {
  for await (const page of listNotificationPages(client, query)) yield* page.data;
}
