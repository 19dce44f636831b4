/**
 * A request checked as the server checks it, before any answer: no `Authorization: ApiKey <key>` is a 401, an
 * idempotency key too long or empty a 400, a parameter or body the contract refuses a 422 naming each invalid input
 * (`query.limit`, `body.email`), a PATCH that is not JSON a 415, malformed JSON a 400, in the server's words.
 */
import type { ErrorObject } from "ajv/dist/2020.js";
import { HttpResponse } from "msw";
import type { OperationId } from "../../generated/operations.js";
import { segmentsOf } from "../json-pointer.js";
import type { FieldErrors } from "../model/answers.js";
import { keyNotFound, readAuthorization } from "../model/authentication.js";
import { contentTypeProblem } from "../model/content-type.js";
import { idempotencyKeyProblem } from "../model/idempotency.js";
import { unknownQueryKey } from "../model/query-keys.js";
import { issueFromParams, patternMessages, schemaMessage } from "../model/schema-messages.js";
import { errorFrame, type Json, operationCheck, requestId, spec } from "./spec.js";

/** The spec's words for each of its patterns (`x-pattern-message`). */
const patterns = patternMessages(spec);

/** A schema refusal in the words every implementation uses (the model's schemaMessage), or undefined. */
function wordsOf(issue: ErrorObject): string | undefined {
  const schemaIssue = issueFromParams(issue.keyword, issue.params as Record<string, unknown>);
  return schemaIssue && schemaMessage(schemaIssue, patterns);
}

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
    const message =
      issue.keyword === "additionalProperties"
        ? "is not a known field"
        : (wordsOf(issue) ?? issue.message ?? "is invalid");
    const entry = errors[key] ?? { messages: [], value: at === undefined ? null : at };
    if (!entry.messages.includes(message)) entry.messages.push(message);
    errors[key] = entry;
  }
}

/**
 * The key a request names, as the server reads it (the model's `readAuthorization`), or its 401: `isKnown` says which
 * keys exist (default: any). Answered in the server's words, the scheme as sent included.
 */
export function authenticate(
  request: Request,
  url: URL,
  isKnown: (apiKey: string) => boolean = () => true,
): { apiKey: string } | { unauthorized: Response } {
  const read = readAuthorization(request.headers.get("authorization"));
  const refusal = "apiKey" in read ? (isKnown(read.apiKey) ? undefined : keyNotFound) : read;
  if (!refusal) return read as { apiKey: string };
  return { unauthorized: refused({ ...errorFrame(refusal.example, url), message: refusal.message }, 401) };
}

/** An error answer to a request the contract refuses, with its request id as the server's has. */
function refused(body: object, status: number): Response {
  return HttpResponse.json(body, { status, headers: { "X-Request-Id": requestId() } });
}

/** Checks a request against the operation's parameters and body; answers 400/415/422 when the contract refuses it. */
export async function requestFailure(
  id: OperationId,
  request: Request,
  params: Json,
  url: URL,
): Promise<Response | null> {
  const idempotencyKey = request.headers.get("idempotency-key");
  const keyProblem = idempotencyKey === null ? undefined : idempotencyKeyProblem(idempotencyKey);
  if (keyProblem) return refused({ ...errorFrame("BadRequestIdempotencyKeyTooLong", url), message: keyProblem }, 400);
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
    const typeProblem = contentTypeProblem(request.headers.get("content-type"));
    if (typeProblem) return refused({ ...errorFrame("UnsupportedMediaType", url), message: typeProblem }, 415);
    const text = await request.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refused(errorFrame("BadRequestMalformedJson", url), 400);
    }
    if (!check.body(body)) addIssues(errors, "body", check.body.errors, body);
  }
  if (Object.keys(errors).length === 0) return null;
  return refused({ ...errorFrame("ValidationPatchBody", url), errors }, 422);
}
