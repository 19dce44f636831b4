/**
 * The typed client for the notification query API, on openapi-fetch with the generated `paths`.
 *
 *   const api = createClient({ baseUrl: "http://localhost:4010", apiKey: "..." });
 *   const { data, error } = await api.GET("/v2/subscribers", { params: { query: { limit: 20 } } });
 *   for await (const subscriber of allSubscribers(api, { email: "@example.com" })) { ... }
 */
import createFetchClient, { type Client, type ClientOptions as FetchClientOptions } from "openapi-fetch";
import type { OperationId } from "../generated/operations.js";
import type {
  ListNotificationsResponse,
  Notification,
  operations,
  paths,
  SearchSubscribersResponse,
  Subscriber,
} from "../generated/schema.js";
import { type AnswerMismatch, dataOrThrow, UnexpectedAnswerError } from "./api-error.js";
import type { ExactMethod } from "./exact-methods.js";
import { newIdempotencyKey } from "./idempotency-key.js";

export * from "../generated/schema.js";
export {
  type AnswerMismatch,
  ApiRequestError,
  ContractError,
  type ContractErrorBody,
  dataOrThrow,
  type ErrorBodyOf,
  errorOf,
  NetworkError,
  type OperationError,
  type RateLimit,
  retryAfterSeconds,
  type SuccessBodyOf,
  UnexpectedAnswerError,
} from "./api-error.js";
export type { ExactMethod } from "./exact-methods.js";
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
  /**
   * Checks each success answer against the contract before it reaches you: pass `validateAnswers` from
   * `@novu-query/contract/validate-answers` (the zod schemas this package ships). A body the schema refuses is thrown
   * as `UnexpectedAnswerError`, its `mismatches` naming each field, instead of being handed to the screen. Off by
   * default: it costs about as much again as the answer's JSON.parse (bench/ANSWER-VALIDATION.md) and zod in
   * the bundle.
   */
  validateAnswers?: AnswerValidator;
}

/**
 * What `validateAnswers` is: the operation a request was (by its method and OpenAPI path), and the mismatches of its
 * success answer's body, none when it is the contract's. Kept out of the client, so that a client without it bundles
 * neither zod nor the operation table.
 */
export interface AnswerValidator {
  operationAt(method: string, schemaPath: string): OperationId | undefined;
  check(operationId: OperationId, body: unknown): readonly AnswerMismatch[];
}

/** The typed client: openapi-fetch's, with a GET and a PATCH whose compiler errors name the wrong path or field. */
export type ApiClient = Omit<Client<paths>, "GET" | "PATCH"> & { GET: ExactMethod<"get">; PATCH: ExactMethod<"patch"> };

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
  const validate = options.validateAnswers;
  if (validate) {
    client.use({
      async onResponse({ request, response, schemaPath }) {
        const operationId = validate.operationAt(request.method, schemaPath);
        if (!operationId || !response.ok || !/\bjson\b/i.test(response.headers.get("content-type") ?? "")) return;
        const text = await response.clone().text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new UnexpectedAnswerError(response.status, text, response.headers, operationId, [
            { path: "", message: "is not JSON" },
          ]);
        }
        const mismatches = validate.check(operationId, body);
        if (mismatches.length > 0) {
          throw new UnexpectedAnswerError(response.status, text, response.headers, operationId, mismatches);
        }
      },
    });
  }
  // openapi-fetch's client, whose GET and PATCH ExactMethod types more strictly (exact-methods.ts).
  return client as ApiClient;
}

/** Every page of a subscriber search, following `next` until it is null. Errors throw `OperationError<"searchSubscribers">`. */
export async function* searchSubscriberPages(
  client: ApiClient,
  query: Omit<SearchSubscribersQuery, "after" | "before"> = {},
): AsyncGenerator<SearchSubscribersResponse> {
  let after: string | undefined;
  do {
    const data = await dataOrThrow(
      "searchSubscribers",
      client.GET("/v2/subscribers", { params: { query: { ...query, ...(after ? { after } : {}) } } }),
    );
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

/**
 * Every page of a notification list, from `page` (default 0) until `hasMore` is false. Errors throw
 * `OperationError<"listNotifications">`.
 */
export async function* listNotificationPages(
  client: ApiClient,
  query: ListNotificationsQuery = {},
): AsyncGenerator<ListNotificationsResponse> {
  let page = query.page ?? 0;
  while (true) {
    const data = await dataOrThrow(
      "listNotifications",
      client.GET("/v1/notifications", { params: { query: { ...query, page } } }),
    );
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
