/**
 * The stateful handlers: answers from data they keep (realistic data from the factories, or the caller's) through the
 * contract's model, by way of `MemoryApi`; PATCHes stick until `reset()`. Requests are checked as by the static ones.
 */
import { type HttpHandler, HttpResponse, http } from "msw";
import { type OperationId, operationTable } from "../../generated/operations.js";
import { createFactories, type FactoryOptions } from "../factories.js";
import { type CallerEnvironment, type MemoryAnswer, MemoryApi, type MemoryData } from "../memory-api.js";
import { exampleResponse } from "./example-answers.js";
import { authenticate, requestFailure } from "./request-checks.js";
import { type HandlerOptions, urlPattern } from "./routes.js";
import { errorFrame, type Json, queryOf, requestId } from "./spec.js";

export interface StatefulOptions extends HandlerOptions {
  /** The data to start from (copied); default: realistic data from the factories (`seed`, `now`). */
  data?: MemoryData;
  /** The factories' seed and clock, when `data` is not given. */
  seed?: FactoryOptions["seed"];
  now?: FactoryOptions["now"];
  /** How many subscribers and notifications the factories make (default 40 and 120). */
  subscribers?: number;
  notifications?: number;
  /** The one key accepted (any other gets Novu's 401 `API Key not found`); default: any key. */
  apiKey?: string;
  /**
   * Keys of several environments, each to its environment's id (24 hexadecimal characters): each key reads and writes
   * only the rows of its environment (`_environmentId`), any other key gets Novu's 401 `API Key not found`. Without
   * `data`, each environment gets data of its own. Takes the place of `apiKey`.
   */
  apiKeys?: Record<string, string>;
  /** Days of history a list may read (older windows are answered 402); default unlimited. */
  retentionDays?: number;
}

export interface StatefulHandlers {
  /** For `setupServer(...handlers)` / `setupWorker(...handlers)`. */
  handlers: HttpHandler[];
  /** The data as the handlers see it now, PATCHes included. */
  api: MemoryApi;
  /** Back to the data the handlers started with (between tests). */
  reset(): void;
}

function memoryResponse(answer: MemoryAnswer, url: URL): Response {
  const headers = { "X-Request-Id": requestId(), ...answer.headers };
  if ("body" in answer) return HttpResponse.json(answer.body as never, { status: answer.status, headers });
  const { example, message, errors } = answer.error;
  const frame = errorFrame(example, url);
  const body = { ...frame, ...(message !== undefined && { message }), ...(errors !== undefined && { errors }) };
  return HttpResponse.json(body, { status: answer.status, headers });
}

/**
 * Handlers that answer from data they keep, with the reference server's semantics: search filters and cursors, pages,
 * PATCHes that stick (idempotent by key) until `reset()`. Requests are checked as by `handlers`.
 *
 *   const mock = createStatefulHandlers({ seed: 7 });
 *   const server = setupServer(...mock.handlers);
 *   afterEach(() => mock.reset());
 */
export function createStatefulHandlers(options: StatefulOptions = {}): StatefulHandlers {
  const initial: MemoryData = options.data ?? defaultData(options);
  const api = new MemoryApi(structuredClone(initial), { retentionDays: options.retentionDays ?? null });
  const reset = () => {
    api.replaceData(structuredClone(initial));
    api.forgetIdempotentAnswers();
  };
  /** The answer from the data; undefined for an operation this mode does not keep data for (its examples answer). */
  const answer = async (
    id: OperationId,
    request: Request,
    params: Json,
    url: URL,
    caller: CallerEnvironment,
  ): Promise<MemoryAnswer | undefined> => {
    switch (id) {
      case "searchSubscribers":
        return api.searchSubscribers(queryOf(id, url), caller);
      case "patchSubscriber": {
        const key = request.headers.get("idempotency-key");
        const subscriberId = String(params.subscriberId);
        const idempotency = key ? { key, path: url.pathname } : undefined;
        return api.patchSubscriber(subscriberId, await request.json(), idempotency, caller);
      }
      case "listNotifications":
        return api.listNotifications(queryOf(id, url), new Date(), caller);
      case "getNotification":
        return api.getNotification(String(params.notificationId), caller);
      default:
        return undefined;
    }
  };
  const handlers = (Object.keys(operationTable) as OperationId[]).map((id) =>
    http[operationTable[id].method](urlPattern(id, options.baseUrl), async ({ request, params }) => {
      const url = new URL(request.url);
      const { apiKeys, apiKey } = options;
      const caller = authenticate(request, url, (key) =>
        apiKeys ? Object.hasOwn(apiKeys, key) : apiKey === undefined || key === apiKey,
      );
      if ("unauthorized" in caller) return caller.unauthorized;
      const environmentId = apiKeys?.[caller.apiKey];
      const refused = await requestFailure(id, request.clone(), params as Json, url);
      if (refused) return refused;
      const kept = await answer(id, request, params as Json, url, { environmentId });
      if (kept) return memoryResponse(kept, url);
      const success = (operationTable[id].statuses as readonly number[]).find((status) => status < 300) ?? 200;
      return exampleResponse(id, { status: success }, { url, params });
    }),
  );
  return { handlers, api, reset };
}

/** Realistic data from the factories: one data set, or with `apiKeys` one per environment (seeds counting up). */
function defaultData(options: StatefulOptions): MemoryData {
  const environments = options.apiKeys ? [...new Set(Object.values(options.apiKeys))] : [undefined];
  const data: MemoryData = { subscribers: [], notifications: [] };
  for (const [index, environmentId] of environments.entries()) {
    const seed = (options.seed ?? 1) + index;
    const make = createFactories({ seed, ...(options.now !== undefined && { now: options.now }) });
    const inEnvironment = environmentId === undefined ? {} : { _environmentId: environmentId };
    const subscribers = make.subscribers(options.subscribers ?? 40, inEnvironment);
    const notifications = make.notifications(options.notifications ?? 120, undefined, subscribers);
    data.subscribers.push(...subscribers);
    data.notifications.push(...notifications);
  }
  return data;
}
