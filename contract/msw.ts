/**
 * Mock Service Worker handlers from the contract, for mocking inside the app: in the browser (service worker), in
 * Vitest or Jest on Node (`setupServer`) and in Storybook. No port, no CORS, a per-test choice of answer.
 *
 *   import { setupServer } from "msw/node";
 *   import { handlers, answer } from "@novu-query/contract/msw";
 *   const server = setupServer(...handlers);
 *   server.use(answer("getNotification", 404));          // this test: the documented 404
 *
 * Every operation answers with its named examples from the bundled spec. Requests are checked against the same spec
 * the way the static mock (Prism) checks them: no `Authorization: ApiKey <key>` is a 401, a parameter or body the
 * contract refuses is a 422 naming each invalid input (`query.limit`, `body.email`), as the server words it.
 * A `Prefer: code=404, example=NotificationNotFound` request header picks an answer, as with Prism.
 * Needs `msw` 2.x, `ajv` and `ajv-formats` (optional peer dependencies of this package).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { type HttpHandler, HttpResponse, http } from "msw";
import spec from "../generated/openapi.json" with { type: "json" };
import { type OperationId, operationTable } from "../generated/operations.js";
import type { operations } from "../generated/schema.js";
import { createFactories, type FactoryOptions } from "./factories.js";
import { pointerOf, resolveRef, segmentsOf } from "./json-pointer.js";
import { type CallerEnvironment, type MemoryAnswer, MemoryApi, type MemoryData } from "./memory-api.js";
import { messages } from "./model/messages.js";
import { unknownQueryKey } from "./model/query-keys.js";
import { fitGet, fitList, fitPatch, fitSearch } from "./static-answers.js";

/** The statuses an operation declares. */
export type StatusOf<Op extends OperationId> = (typeof operationTable)[Op]["statuses"][number];

/** The names of the named examples the spec gives for one status of an operation. */
export type ExampleOf<
  Op extends OperationId,
  S extends StatusOf<Op>,
> = `${S}` extends keyof (typeof operationTable)[Op]["examples"]
  ? (typeof operationTable)[Op]["examples"][`${S}`] extends readonly (infer Name)[]
    ? Name
    : never
  : never;

/** The JSON body of one status of an operation, as the spec types it. */
export type BodyOf<Op extends OperationId, S extends StatusOf<Op>> = operations[Op]["responses"] extends infer R
  ? S extends keyof R
    ? R[S] extends { content: { "application/json": infer Body } }
      ? Body
      : never
    : never
  : never;

export interface HandlerOptions {
  /**
   * Where the app's client sends its requests, e.g. "https://api.example.com" or "/api". Default: any origin, so
   * `createClient({ baseUrl: "http://localhost:3000" })` and a deployed URL are both intercepted.
   */
  baseUrl?: string;
}

/** What one answer is: a status, and a named example of it or a body of your own. */
type Choice = { status: number; example?: string; body?: unknown };

interface SpecParameter {
  name: string;
  in: string;
  required?: boolean;
}

type Json = Record<string, unknown>;

// ajv-formats is CommonJS; its default export arrives wrapped under some ESM loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

function resolve(node: unknown): Json {
  return resolveRef<Json>(spec, node);
}

let validators: { params: Ajv2020; body: Ajv2020 } | undefined;

/** Two validators over the bundled spec: parameters arrive as text and are coerced like the server's; bodies are not. */
function specAjv(): { params: Ajv2020; body: Ajv2020 } {
  if (validators) return validators;
  const make = (coerce: boolean) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: coerce ? "array" : false });
    addFormats(ajv);
    ajv.addSchema(spec as object, "spec");
    return ajv;
  };
  validators = { params: make(true), body: make(false) };
  return validators;
}

interface OperationCheck {
  parameters: {
    where: "query" | "path";
    name: string;
    required: boolean;
    /** The schema's type: what a query parameter's text becomes in the stateful mode. */
    type: "string" | "integer" | "number" | "boolean" | "array";
    validate: ValidateFunction;
  }[];
  body?: ValidateFunction;
}

const checks = new Map<OperationId, OperationCheck>();

function operationCheck(id: OperationId): OperationCheck {
  const cached = checks.get(id);
  if (cached) return cached;
  const { path, method } = operationTable[id];
  const operation = resolve((spec.paths as Json)[path]) as Json;
  const base = pointerOf(["paths", path, method]);
  const { params, body } = specAjv();
  const parameters = (((operation[method] as Json).parameters ?? []) as unknown[]).flatMap((raw, index) => {
    const parameter = resolve(raw) as unknown as SpecParameter;
    if (parameter.in !== "query" && parameter.in !== "path") return [];
    const schema = typeof (raw as Json).$ref === "string" ? `${(raw as Json).$ref}/schema`.slice(1) : undefined;
    const type = resolve((parameter as unknown as Json).schema).type;
    return [
      {
        where: parameter.in as "query" | "path",
        name: parameter.name,
        required: parameter.required === true,
        type: (typeof type === "string" ? type : "string") as OperationCheck["parameters"][number]["type"],
        validate: params.compile({ $ref: `spec#${schema ?? `${base}/parameters/${index}/schema`}` }),
      },
    ];
  });
  const check: OperationCheck = { parameters };
  if (operationTable[id].hasBody) {
    const requestBody = (operation[method] as Json).requestBody as Json;
    const at = typeof requestBody.$ref === "string" ? requestBody.$ref.slice(1) : `${base}/requestBody`;
    check.body = body.compile({ $ref: `spec#${at}/content/application~1json/schema` });
  }
  checks.set(id, check);
  return check;
}

type FieldErrors = Record<string, { messages: string[]; value: unknown }>;

function addIssues(errors: FieldErrors, prefix: string, issues: ErrorObject[] | null | undefined, value: unknown) {
  for (const issue of issues ?? []) {
    let key = prefix;
    let at: unknown = value;
    const segments = segmentsOf(issue.instancePath);
    if (issue.keyword === "additionalProperties") segments.push(String(issue.params.additionalProperty));
    for (const segment of segments) {
      key += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
      at = at && typeof at === "object" ? (at as Json)[segment] : undefined;
    }
    const message = issue.keyword === "additionalProperties" ? "is not a known field" : (issue.message ?? "is invalid");
    const entry = errors[key] ?? { messages: [], value: at === undefined ? null : at };
    if (!entry.messages.includes(message)) entry.messages.push(message);
    errors[key] = entry;
  }
}

/**
 * A named error example's status, reason and message (the server's words) and a 422's `ctx`, with this request's time
 * and path.
 */
function errorFrame(exampleName: string, url: URL) {
  const { statusCode, error, message, ctx } = exampleValue(exampleName) as {
    statusCode: number;
    error: string;
    message: string;
    ctx?: object;
  };
  const frame = { statusCode, error, message, timestamp: new Date().toISOString(), path: url.pathname + url.search };
  return ctx === undefined ? frame : { ...frame, ctx };
}

function exampleValue(name: string): unknown {
  const example = (spec.components.examples as Record<string, { value?: unknown }>)[name];
  if (!example) throw new Error(`the contract has no example named ${name}`);
  return structuredClone(example.value);
}

/**
 * An example made to answer this request where it can: an error's path and time are this request's, as the server's
 * would be, and its message names the requested resource instead of the example's. A success of one of the four
 * operations answers as `./static-answers.js` says (filters applied, the requested record, pages that end with ids of
 * their own); of another operation, it names the requested resource (the path parameter's field, or `_id` for an id).
 */
function fitExampleToRequest(id: OperationId, example: Json, status: number, request: FittedRequest): Json {
  const { url, params } = request;
  const requested = Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  if (status >= 400) {
    const examplePath = typeof example.path === "string" ? example.path : "";
    const exampleId = examplePath.split("/").at(-1);
    const requestedId = requested.at(-1)?.[1];
    if (exampleId && requestedId && typeof example.message === "string") {
      example.message = example.message.split(exampleId).join(requestedId);
    }
    return { ...example, path: url.pathname + url.search, timestamp: new Date().toISOString() };
  }
  if (status !== 200) return example;
  const fitted = fitSuccess(id, example, request);
  if (fitted) return fitted;
  for (const [name, value] of requested) {
    if (name in example) example[name] = value;
    else if (requested.length === 1 && /Id$/.test(name) && "_id" in example) example._id = value;
  }
  return example;
}

/** A success of one of the four operations, fitted to the request; undefined for another operation. */
function fitSuccess(id: OperationId, example: Json, { url, params, body }: FittedRequest): Json | undefined {
  switch (id) {
    case "searchSubscribers":
      return fitSearch(example as never, queryOf(id, url)) as unknown as Json;
    case "listNotifications":
      return fitList(example as never, queryOf(id, url)) as unknown as Json;
    case "patchSubscriber":
      return fitPatch(example as never, String(params.subscriberId), body as never) as unknown as Json;
    case "getNotification":
      return fitGet(example as never, String(params.notificationId)) as unknown as Json;
    default:
      return undefined;
  }
}

/** What an example is fitted to: the request's URL, path parameters and (already checked) JSON body. */
interface FittedRequest {
  url: URL;
  params: Json;
  body?: unknown;
}

function exampleResponse(id: OperationId, choice: Choice, request: FittedRequest): Response {
  const { path, method } = operationTable[id];
  const responses = ((spec.paths as Json)[path] as Json)[method] as { responses: Json };
  const response = resolve(responses.responses[String(choice.status)]) as {
    headers?: Record<string, unknown>;
    content?: Record<string, { examples?: Record<string, unknown> }>;
  };
  let body = choice.body;
  if (body === undefined) {
    body = exampleBody(id, choice.status as never, choice.example as never);
    if (body && typeof body === "object") body = fitExampleToRequest(id, body as Json, choice.status, request);
  }
  const headers = new Headers();
  for (const [name, raw] of Object.entries(response.headers ?? {})) {
    const header = resolve(raw) as { example?: unknown };
    if (name.toLowerCase() === "x-request-id") headers.set(name, requestId());
    else if (header.example !== undefined) headers.set(name, String(header.example));
  }
  return HttpResponse.json(body as never, { status: choice.status, headers });
}

/**
 * A named example's body, typed as the answer it documents (a fresh copy each time), to start a `respond` body from.
 * Without a name: the first example of that status.
 */
export function exampleBody<Op extends OperationId, S extends StatusOf<Op>>(
  operationId: Op,
  status: S,
  example?: ExampleOf<Op, S>,
): BodyOf<Op, S> {
  const names = (operationTable[operationId].examples as Record<string, readonly string[]>)[String(status)] ?? [];
  const name = (example as string | undefined) ?? names[0];
  if (!name || !names.includes(name)) throw new Error(`${operationId} has no ${status} example named ${name}`);
  return exampleValue(name) as BodyOf<Op, S>;
}

function requestId(): string {
  return typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

/** The request's `Prefer: code=404, example=Name` choice, as Prism reads it. */
function preferred(request: Request): Partial<Choice> {
  const choice: Partial<Choice> = {};
  for (const part of (request.headers.get("prefer") ?? "").split(",")) {
    const [key, value] = part.split("=").map((text) => text.trim());
    if (key === "code" && value && /^\d{3}$/.test(value)) choice.status = Number(value);
    if (key === "example" && value) choice.example = value;
  }
  return choice;
}

/** The 401 a request deserves, by the example whose text the server sends for it; undefined when the key is usable. */
function authenticationFailure(request: Request): string | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization === null) return "UnauthorizedMissingHeader";
  const [scheme, key] = authorization.trim().split(/\s+/, 2);
  if (scheme !== "ApiKey") return "UnauthorizedInvalidScheme";
  if (!key) return "UnauthorizedEmptyKey";
  return undefined;
}

/** An error answer to a request the contract refuses, with its request id as the server's has. */
function refusal(body: object, status: number): Response {
  return HttpResponse.json(body, { status, headers: { "X-Request-Id": requestId() } });
}

/** Checks a request against the operation's parameters and body; answers 400/415/422 when the contract refuses it. */
async function requestFailure(id: OperationId, request: Request, params: Json, url: URL): Promise<Response | null> {
  const idempotencyKey = request.headers.get("idempotency-key");
  if (idempotencyKey !== null && (idempotencyKey.length > 255 || idempotencyKey === "")) {
    // Novu's 400, which names the key: the example's message with this request's key in it (or, empty, says so).
    const frame = errorFrame("BadRequestIdempotencyKeyTooLong", url);
    const message =
      idempotencyKey === ""
        ? messages.idempotencyKeyEmpty
        : frame.message.replace(/"[^"]*"/, JSON.stringify(idempotencyKey));
    return refusal({ ...frame, message }, 400);
  }
  const check = operationCheck(id);
  const errors: FieldErrors = {};
  const known = new Set(check.parameters.filter((p) => p.where === "query").map((p) => p.name));
  const names = new Set<string>();
  url.searchParams.forEach((_value, name) => {
    names.add(name);
  });
  for (const name of names) {
    if (!known.has(name))
      errors[`query.${name}`] = unknownQueryKey(name, url.searchParams.getAll(name), (n) => known.has(n));
  }
  for (const parameter of check.parameters) {
    const raw =
      parameter.where === "path"
        ? (params[parameter.name] as string | undefined)
        : url.searchParams.getAll(parameter.name).length > 1
          ? url.searchParams.getAll(parameter.name)
          : (url.searchParams.get(parameter.name) ?? undefined);
    const key = `${parameter.where}.${parameter.name}`;
    if (raw === undefined) {
      if (parameter.required) errors[key] = { messages: ["is required"], value: null };
      continue;
    }
    // Parameters arrive as text; the validator coerces ("5" -> 5, "a" -> ["a"]) as the server's does.
    if (!parameter.validate(Array.isArray(raw) ? [...raw] : raw))
      addIssues(errors, key, parameter.validate.errors, raw);
  }
  if (check.body) {
    if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) {
      return refusal(errorFrame("UnsupportedMediaType", url), 415);
    }
    const text = await request.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refusal(errorFrame("BadRequestMalformedJson", url), 400);
    }
    if (!check.body(body)) addIssues(errors, "body", check.body.errors, body);
  }
  if (Object.keys(errors).length === 0) return null;
  return refusal({ ...errorFrame("ValidationPatchBody", url), errors }, 422);
}

/**
 * The URL pattern of an operation. A relative base URL ("/api", as a browser app on its own origin uses) matches on
 * any origin: under Node (Vitest, Jest) there is no page origin to resolve it against.
 */
function urlPattern(id: OperationId, baseUrl: string | undefined): string {
  const path = operationTable[id].expressPath;
  if (baseUrl === undefined) return `*${path}`;
  const base = baseUrl.replace(/\/+$/, "");
  return base.startsWith("/") ? `*${base}${path}` : `${base}${path}`;
}

/** Fails for a status the operation does not declare or an example name it does not have. */
function checkChoice(id: OperationId, choice: Choice): void {
  if (!(operationTable[id].statuses as readonly number[]).includes(choice.status)) {
    throw new Error(
      `${id} does not declare status ${choice.status}; it declares ${operationTable[id].statuses.join(", ")}`,
    );
  }
  const names = (operationTable[id].examples as Record<string, readonly string[]>)[String(choice.status)] ?? [];
  if (choice.example !== undefined && !names.includes(choice.example)) {
    throw new Error(`${id} has no ${choice.status} example named ${choice.example}; it has ${names.join(", ")}`);
  }
}

function handlerFor(id: OperationId, options: HandlerOptions, fixed?: Choice): HttpHandler {
  if (fixed) checkChoice(id, fixed);
  const method = operationTable[id].method;
  return http[method](urlPattern(id, options.baseUrl), async ({ request, params }) => {
    const url = new URL(request.url);
    const failedAuthentication = authenticationFailure(request);
    if (failedAuthentication) {
      return exampleResponse(id, { status: 401, example: failedAuthentication }, { url, params });
    }
    const refused = await requestFailure(id, request.clone(), params as Json, url);
    if (refused) return refused;
    const prefer = preferred(request);
    const choice: Choice = fixed ?? {
      status: prefer.status ?? 200,
      ...(prefer.example && { example: prefer.example }),
    };
    checkChoice(id, choice);
    const body = operationTable[id].hasBody ? await request.json() : undefined;
    return exampleResponse(id, choice, { url, params, body });
  });
}

/** Handlers for every operation of the contract, answering with the named examples (the first of each status). */
export function createHandlers(options: HandlerOptions = {}): HttpHandler[] {
  return (Object.keys(operationTable) as OperationId[]).map((id) => handlerFor(id, options));
}

/** The default handlers: any origin, the first named example of each answer. */
export const handlers: HttpHandler[] = createHandlers();

/**
 * A handler that answers one operation with a documented status and, optionally, one of its named examples, for
 * `server.use(...)` / `worker.use(...)` in one test or story. Requests are still checked first (a request without a
 * key still gets its 401). The status and the example name are typed: an undeclared one does not compile.
 *
 *   server.use(answer("listNotifications", 200, "ListNotificationsEmpty"));
 *   server.use(answer("getNotification", 404));
 */
export function answer<Op extends OperationId, S extends StatusOf<Op>>(
  operationId: Op,
  status: S,
  example?: ExampleOf<Op, S>,
  options: HandlerOptions = {},
): HttpHandler {
  return handlerFor(operationId, options, { status, ...(example !== undefined && { example: example as string }) });
}

/**
 * A handler that answers one operation with a documented status and a body of your own, typed by the contract: a
 * field the schema does not have, or a missing required one, is a compile error.
 *
 *   server.use(respond("getNotification", 200, { ...exampleBody("getNotification", 200), transactionId: "txn-1" }));
 */
export function respond<Op extends OperationId, S extends StatusOf<Op>>(
  operationId: Op,
  status: S,
  body: BodyOf<Op, S>,
  options: HandlerOptions = {},
): HttpHandler {
  return handlerFor(operationId, options, { status, body });
}

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

/** A query parameter's text as the schema types it (the validator has accepted it already). */
function queryOf(id: OperationId, url: URL): Json {
  const query: Json = { ...(operationTable[id].queryDefaults as Json) };
  for (const { where, name, type } of operationCheck(id).parameters) {
    if (where !== "query" || !url.searchParams.has(name)) continue;
    const text = url.searchParams.get(name) as string;
    query[name] =
      type === "array"
        ? url.searchParams.getAll(name)
        : type === "integer" || type === "number"
          ? Number(text)
          : type === "boolean"
            ? text === "true"
            : text;
  }
  return query;
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
      const key = (request.headers.get("authorization") ?? "").trim().split(/\s+/)[1] ?? "";
      const environmentId = options.apiKeys && Object.hasOwn(options.apiKeys, key) ? options.apiKeys[key] : undefined;
      const known = options.apiKeys
        ? environmentId !== undefined
        : options.apiKey === undefined || key === options.apiKey;
      const failed = authenticationFailure(request) ?? (known ? undefined : "UnauthorizedKeyNotFound");
      if (failed) return exampleResponse(id, { status: 401, example: failed }, { url, params });
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
