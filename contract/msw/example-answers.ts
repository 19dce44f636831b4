/**
 * The spec's named examples as answers: the one a test or a `Prefer: code=404, example=NotificationNotFound` header
 * picks (both checked against what the operation declares), fitted to the request (./fit-examples.ts), with the
 * headers the spec declares on that answer.
 */
import { HttpResponse } from "msw";
import { type OperationId, operationTable } from "../../generated/operations.js";
import type { operations } from "../../generated/schema.js";
import { fitGet, fitList, fitPatch, fitSearch } from "./fit-examples.js";
import { exampleValue, type Json, queryOf, requestId, resolve, responseOf } from "./spec.js";

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

/** The names of an operation's examples of one status (none for a status without examples). */
function exampleNames(id: OperationId, status: number): readonly string[] {
  const examples: Partial<Record<string, readonly string[]>> = operationTable[id].examples;
  return examples[String(status)] ?? [];
}

/** What one answer is: a status, and a named example of it or a body of your own. */
export type Choice = { status: number; example?: string; body?: unknown };

/**
 * An example made to answer this request where it can: an error's path and time are this request's, as the server's
 * would be, and its message names the requested resource instead of the example's. A success of one of the four
 * operations answers as `./fit-examples.ts` says (filters applied, the requested record, pages that end with ids of
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
export interface FittedRequest {
  url: URL;
  params: Json;
  body?: unknown;
}

export function exampleResponse(id: OperationId, choice: Choice, request: FittedRequest): Response {
  const response = responseOf(id, choice.status);
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
  const names = exampleNames(operationId, status);
  const name = (example as string | undefined) ?? names[0];
  if (!name || !names.includes(name)) throw new Error(`${operationId} has no ${status} example named ${name}`);
  return exampleValue(name) as BodyOf<Op, S>;
}

/** The request's `Prefer: code=404, example=Name` choice, as Prism reads it. */
export function preferred(request: Request): Partial<Choice> {
  const choice: Partial<Choice> = {};
  for (const part of (request.headers.get("prefer") ?? "").split(",")) {
    const [key, value] = part.split("=").map((text) => text.trim());
    if (key === "code" && value && /^\d{3}$/.test(value)) choice.status = Number(value);
    if (key === "example" && value) choice.example = value;
  }
  return choice;
}

/** Fails for a status the operation does not declare or an example name it does not have. */
export function checkChoice(id: OperationId, choice: Choice): void {
  if (!(operationTable[id].statuses as readonly number[]).includes(choice.status)) {
    throw new Error(
      `${id} does not declare status ${choice.status}; it declares ${operationTable[id].statuses.join(", ")}`,
    );
  }
  const names = exampleNames(id, choice.status);
  if (choice.example !== undefined && !names.includes(choice.example)) {
    throw new Error(`${id} has no ${choice.status} example named ${choice.example}; it has ${names.join(", ")}`);
  }
}
