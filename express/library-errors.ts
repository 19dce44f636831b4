/**
 * What the libraries in front of the handlers throw, as our ApiError: express-openapi-validator's request errors
 * (400/404/405/415 and the 422 naming each input) and body-parser's (malformed JSON, too large, wrong charset).
 */

import { decodeSegment } from "@novu-query/contract/json-pointer";
import {
  contentTypeProblem,
  idempotencyKeyProblem,
  issueFromMessage,
  patternMessages,
  schemaMessage,
} from "@novu-query/contract/model";
import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import type { Request } from "express";
import { ApiError, type FieldErrors } from "./errors.js";
import { messages } from "./messages.js";
import { operationMetadata, operationOf } from "./request-metadata.js";
import { queryParameterProblems } from "./request-rules.js";

interface ValidatorIssue {
  path: string;
  message: string;
  errorCode?: string;
}

interface ValidatorError {
  status: number;
  errors: ValidatorIssue[];
  headers?: Record<string, string>;
}

export function isValidatorError(error: unknown): error is ValidatorError {
  const candidate = error as ValidatorError;
  return typeof candidate?.status === "number" && Array.isArray(candidate.errors);
}

const locationNames: Record<string, string> = { query: "query", body: "body", params: "path", headers: "headers" };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** A key one segment deeper, as the 422 entries and the logs write it: `query.channels` + `0` -> `query.channels[0]`. */
function withSegment(key: string, segment: string): string {
  return /^\d+$/.test(segment) ? `${key}[${segment}]` : `${key}.${segment}`;
}

/** Where each part of a request is, by the first segment of the validator's path. */
const sources: Record<string, (req: Request) => unknown> = {
  query: (req) => req.query,
  body: (req) => req.body,
  params: (req) => operationMetadata(req)?.pathParams,
  headers: (req) => req.headers,
};

/**
 * `/query/channels/0` -> { key: "query.channels[0]", value: req.query.channels[0] }. The validator's path is ajv's
 * instance path (a JSON pointer: `~1` for "/", `~0` for "~") with, for an unknown or missing property, the property's
 * name appended as it is, slashes and all; a name the input holds whole is taken whole.
 */
function describeIssue(issue: ValidatorIssue, req: Request): { key: string; value: unknown } {
  const [location = "", ...segments] = issue.path.replace(/^\//, "").split("/");
  let value: unknown = sources[location]?.(req);
  let key = locationNames[location] ?? location;
  for (let index = 0; index < segments.length; index++) {
    const rest = segments.slice(index).join("/");
    const whole = isObject(value) && Object.hasOwn(value, rest);
    const segment = whole ? rest : decodeSegment(segments[index] as string);
    key = withSegment(key, segment);
    value = isObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
    if (whole) break;
  }
  return { key, value: value === undefined ? null : value };
}

/**
 * The validator's refusal of a query value with a character the URL reserves (`:/?#[]@!$&'()*+,;=`) that the
 * parameter does not allow unencoded: the one issue it raises without an ajv keyword, on a `/query/<name>` path.
 */
const isUnencoded = (issue: ValidatorIssue) => issue.errorCode === undefined && issue.path.startsWith("/query/");

/** The list parameter a 422 key names, itself or one of its items (`query.channels`, `query.channels[0]`). */
const listParameterOf = (key: string) => /^query\.([^.[]+)(?:\[\d+\])?$/.exec(key)?.[1];

/**
 * `channels=sms,push` for a list parameter, which the contract takes as `channels=sms&channels=push` (OpenAPI's
 * `explode: true`, as Novu's SDK sends it), refused (the comma unencoded, or encoded and no value of the list): the
 * answer says to repeat the parameter. Undefined when the value is not comma-separated.
 */
function commaSeparatedList(key: string, value: unknown): string | undefined {
  const name = listParameterOf(key);
  if (!name || typeof value !== "string" || !value.includes(",")) return undefined;
  const repeated = value
    .split(",")
    .map((item) => `${name}=${encodeURIComponent(item.trim())}`)
    .join("&");
  return `is a list: repeat the parameter for each value (${repeated}), not comma-separated`;
}

/** The spec's words for each of its patterns (`x-pattern-message`). */
const patterns = patternMessages(spec);

/** What a refused input's 422 entry says: in words for the issues whose own words are the library's, not a user's. */
function friendlyMessage(issue: ValidatorIssue, key: string, value: unknown): string {
  if (issue.errorCode?.startsWith("additionalProperties")) return "is not a known field";
  const onListItem = /\[\d+\]$/.test(key);
  const list = isUnencoded(issue) || onListItem ? commaSeparatedList(key, value) : undefined;
  if (list) return list;
  if (isUnencoded(issue))
    return "may not contain reserved characters (:/?#[]@!$&'()*+,;=) unless they are percent-encoded";
  // The schema's refusals in the words every implementation uses (the model's schemaMessage).
  const keyword = issue.errorCode?.replace(/\.openapi\.validation$/, "");
  const schemaIssue = keyword === undefined ? undefined : issueFromMessage(keyword, issue.message);
  return (schemaIssue && schemaMessage(schemaIssue, patterns)) ?? issue.message;
}

/** Maps express-openapi-validator's request errors to our 400/404/405/415/422 answers. */
export function fromValidator(error: ValidatorError, req: Request): ApiError {
  switch (error.status) {
    case 404:
      return ApiError.notFound(messages.routeNotFound(req.method, req.path));
    case 405:
      return new ApiError(405, messages.methodNotAllowed(req.method, req.path), error.headers ?? {});
    case 415:
      return new ApiError(415, messages.notJson);
    case 400:
      return idempotencyKeyRefusal(error.errors, req) ?? ApiError.validation(fieldErrors(error.errors, req));
    default:
      throw error;
  }
}

/** Novu's 400 for an idempotency key too long or empty, when that is all that is wrong. */
function idempotencyKeyRefusal(issues: ValidatorIssue[], req: Request): ApiError | undefined {
  if (issues.length === 0 || !issues.every((issue) => issue.path === "/headers/idempotency-key")) return undefined;
  const key = String(req.headers["idempotency-key"]);
  return ApiError.badRequest(idempotencyKeyProblem(key) ?? messages.idempotencyKeyTooLong(key));
}

/** One 422 entry per invalid input: the validator's issues and what it lets through (request-rules.ts). */
function fieldErrors(issues: ValidatorIssue[], req: Request): FieldErrors {
  const id = operationOf(req);
  const fields: FieldErrors = { ...(id && queryParameterProblems(id, req)) };
  for (const issue of issues) {
    const { key, value } = describeIssue(issue, req);
    const entry = fields[key] ?? { messages: [], value };
    entry.messages.push(friendlyMessage(issue, key, value));
    fields[key] = entry;
  }
  return fields;
}

/** `/response/data/0/secret` -> `body.data[0].secret`. */
function answerField(path: string): string {
  const segments = path
    .replace(/^\/response\/?/, "")
    .split("/")
    .filter(Boolean)
    .map(decodeSegment);
  return segments.reduce(withSegment, "body");
}

function answerProblem(issue: ValidatorIssue): string {
  const field = answerField(issue.path);
  if (issue.errorCode?.startsWith("additionalProperties")) return `${field} is not in the contract`;
  if (issue.errorCode?.startsWith("required")) return `${field} is required by the contract and missing`;
  return `${field} ${issue.message}`;
}

/**
 * What a handler answered that the contract does not declare, in words that name each field (the validator's own
 * message, `/response must NOT have additional properties`, does not): undefined for any other error.
 */
export function responseMismatch(error: unknown): string[] | undefined {
  if (!isValidatorError(error) || error.status !== 500) return undefined;
  const issues = error.errors.filter((issue) => issue.path.startsWith("/response"));
  return issues.length > 0 ? issues.map(answerProblem) : undefined;
}

interface BodyParserError {
  type: string;
  status: number;
  /** The body limit in bytes, on a body that passed it. */
  limit?: number;
}

/**
 * A body that its Content-Encoding does not decode (not gzip at all, truncated, bad deflate or brotli): zlib's error,
 * which body-parser passes on as a 400 without a `type`. Undefined for any other error.
 */
export function fromDecoding(error: unknown, req: Request): ApiError | undefined {
  const candidate = error as { status?: unknown; errno?: unknown; code?: unknown };
  if (candidate?.status !== 400 || typeof candidate.errno !== "number" || typeof candidate.code !== "string") {
    return undefined;
  }
  const encoding =
    String(req.headers["content-encoding"] ?? "")
      .trim()
      .toLowerCase() || "compressed";
  return ApiError.badRequest(messages.undecodableBody(encoding));
}

/**
 * body-parser's errors: the router's own parser, or a host app's `express.json()` in front of the router. A body in a
 * Content-Type the contract does not read is 415 with the model's message (`contentTypeProblem`), whatever the parser
 * made of it, as the router's own check answers before its parser: a host's parser decodes `utf-16` into text that is
 * not JSON, and refuses `utf8`.
 */
export function fromBodyParser(error: BodyParserError, req: Request): ApiError | undefined {
  switch (error.type) {
    case "request.aborted":
      return ApiError.badRequest(messages.bodyAborted);
    case "entity.parse.failed": {
      const problem = contentTypeProblem(req.headers["content-type"]);
      return problem ? new ApiError(415, problem) : ApiError.badRequest(messages.malformedJson);
    }
    case "entity.too.large":
      return new ApiError(413, messages.bodyTooLarge(Math.round((error.limit ?? 0) / 1024)));
    case "encoding.unsupported":
      return new ApiError(415, messages.notJson);
    case "charset.unsupported":
      return new ApiError(415, contentTypeProblem(req.headers["content-type"]) ?? messages.notJson);
    default:
      return undefined;
  }
}
