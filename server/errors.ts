import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "pino";
import { type OperationId, operationTable } from "../generated/operations.js";
import type { ConstraintValidation, ErrorDto, ValidationErrorDto } from "../generated/schema.js";
import { messages } from "./messages.js";
import { operationMetadata } from "./request-metadata.js";

export type FieldErrors = Record<string, ConstraintValidation>;

/** The one error type: everything that answers with an error throws one of these (or lets the middleware map it). */
export class ApiError extends Error {
  readonly status: number;
  readonly fieldErrors?: FieldErrors;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, fieldErrors?: FieldErrors, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.fieldErrors = fieldErrors;
    this.headers = headers;
    this.name = "ApiError";
  }

  static badRequest(message: string) {
    return new ApiError(400, message);
  }
  static unauthorized(message: string) {
    return new ApiError(401, message);
  }
  static notFound(message: string) {
    return new ApiError(404, message);
  }
  static validation(errors: FieldErrors, message: string = messages.validation) {
    return new ApiError(422, message, errors);
  }
}

export type ErrorBody = ErrorDto | ValidationErrorDto;

/** The HTTP reason phrase of a status, as the error bodies and raw status lines give it. */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? "Error";
}

/** An error body for an answer given before Express has a request (a malformed or oversized request head). */
export function transportErrorBody(status: number, message: string, path: string): ErrorDto {
  return { statusCode: status, error: reasonPhrase(status), message, timestamp: new Date().toISOString(), path };
}

/** The body of every error response. `path` is the request URL with its query string. */
export function errorBody(error: ApiError, req: Request, errorId?: string): ErrorBody {
  const base = transportErrorBody(error.status, error.message, req.originalUrl);
  if (error.fieldErrors) return { ...base, statusCode: 422, error: "Unprocessable Entity", errors: error.fieldErrors };
  return errorId ? { ...base, errorId } : base;
}

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

function isValidatorError(error: unknown): error is ValidatorError {
  const candidate = error as ValidatorError;
  return typeof candidate?.status === "number" && Array.isArray(candidate.errors);
}

const locationNames: Record<string, string> = { query: "query", body: "body", params: "path", headers: "headers" };

/** `/query/channels/0` -> { key: "query.channels[0]", value: req.query.channels[0] } */
function describeIssue(issue: ValidatorIssue, req: Request): { key: string; value: unknown } {
  const [location = "", ...segments] = issue.path.replace(/^\//, "").split("/");
  const source: unknown =
    location === "query"
      ? req.query
      : location === "body"
        ? req.body
        : location === "params"
          ? operationMetadata(req)?.pathParams
          : location === "headers"
            ? req.headers
            : undefined;
  let value: unknown = source;
  let key = locationNames[location] ?? location;
  for (const segment of segments.map(decodeURIComponent)) {
    key += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return { key, value: value === undefined ? null : value };
}

function friendlyMessage(issue: ValidatorIssue): string {
  if (issue.errorCode?.startsWith("additionalProperties")) return "is not a known field";
  return issue.message;
}

/**
 * What the validator lets through that is still wrong with a query, as 422 entries (undefined when nothing is):
 * parameters the operation does not declare (the validator is told to allow them, so that they are reported together
 * with every other invalid input), and numbers that coerced to Infinity, which ajv's numeric checks do not catch.
 */
export function queryParameterProblems(id: OperationId, req: Request): FieldErrors | undefined {
  const known: readonly string[] = operationTable[id].queryParameters;
  const problems: FieldErrors = {};
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!known.includes(name))
      problems[`query.${name}`] = { messages: ["is not a known query parameter"], value: (value ?? null) as never };
    else if (typeof value === "number" && !Number.isFinite(value)) {
      problems[`query.${name}`] = { messages: ["must be a finite number"], value: String(value) };
    }
  }
  return Object.keys(problems).length > 0 ? problems : undefined;
}

function operationOf(req: Request): OperationId | undefined {
  const id = operationMetadata(req)?.schema?.operationId;
  return id !== undefined && id in operationTable ? (id as OperationId) : undefined;
}

/** Maps express-openapi-validator's request errors to our 400/404/405/415/422 answers. */
function fromValidator(error: ValidatorError, req: Request): ApiError {
  switch (error.status) {
    case 404:
      return ApiError.notFound(messages.routeNotFound(req.method, req.path));
    case 405:
      return new ApiError(405, messages.methodNotAllowed(req.method, req.path), undefined, error.headers ?? {});
    case 415:
      return new ApiError(415, messages.notJson);
    case 400: {
      const issues = error.errors;
      if (issues.length > 0 && issues.every((issue) => issue.path === "/headers/idempotency-key")) {
        return ApiError.badRequest(messages.idempotencyKeyTooLong(String(req.headers["idempotency-key"])));
      }
      const id = operationOf(req);
      const fields: FieldErrors = { ...(id && queryParameterProblems(id, req)) };
      for (const issue of issues) {
        const { key, value } = describeIssue(issue, req);
        const entry = fields[key] ?? { messages: [], value };
        entry.messages.push(friendlyMessage(issue));
        fields[key] = entry;
      }
      return ApiError.validation(fields);
    }
    default:
      throw error;
  }
}

interface BodyParserError {
  type: string;
  status: number;
}

function fromBodyParser(error: BodyParserError, limitBytes: number): ApiError | undefined {
  switch (error.type) {
    case "entity.parse.failed":
      return ApiError.badRequest(messages.malformedJson);
    case "entity.too.large":
      return new ApiError(413, messages.bodyTooLarge(Math.round(limitBytes / 1024)));
    case "encoding.unsupported":
    case "charset.unsupported":
      return new ApiError(415, messages.notJson);
    default:
      return undefined;
  }
}

// Sent as text, past the response validator: a scaffolded 501 is not a status the spec declares, and an error
// answer must never turn into a second error. The error bodies are typed by ErrorDto and tested directly.
function send(res: Response, body: ErrorBody): void {
  res.type("application/json").send(JSON.stringify(body));
}

/** The only place that writes an error response. A 500 is logged with its errorId and says nothing of the cause. */
export function errorHandler(logger: Logger, bodyLimitBytes: number): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    let apiError: ApiError | undefined;
    try {
      if (error instanceof ApiError) apiError = error;
      else if (typeof error?.type === "string") apiError = fromBodyParser(error, bodyLimitBytes);
      if (!apiError && isValidatorError(error) && error.status < 500) apiError = fromValidator(error, req);
    } catch {
      apiError = undefined;
    }
    if (!apiError || apiError.status === 500) {
      const errorId = randomUUID();
      (req.log ?? logger).error({ err: error, errorId }, "request failed");
      const internal = new ApiError(500, messages.internal);
      send(res.status(500), errorBody(internal, req, errorId));
      return;
    }
    send(res.set(apiError.headers).status(apiError.status), errorBody(apiError, req));
  };
}
