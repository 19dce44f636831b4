/**
 * The one error type and the bodies it answers with. Everything that answers with an error throws an ApiError (or
 * lets error-handler.ts map a library's error to one); handlers make theirs with their operation's helpers
 * (operation-errors.ts), which allow declared statuses only.
 */
import { STATUS_CODES } from "node:http";
import type { FieldErrors } from "@novu-query/contract/model";
import type { ErrorDto, ValidationErrorDto } from "@novu-query/contract/types";
import type { Request } from "express";
import { messages } from "./messages.js";
import { isSecretParameter, redacted, redactUrl } from "./redact.js";

export type { FieldErrors };

export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
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
  static validation(errors: FieldErrors, message: string = messages.validation, headers: Record<string, string> = {}) {
    return new ValidationError(errors, message, headers);
  }
}

/** The 422 with one entry per invalid input: the only error whose body has `errors` (ValidationErrorDto). */
export class ValidationError extends ApiError {
  readonly fieldErrors: FieldErrors;

  constructor(fieldErrors: FieldErrors, message: string, headers: Record<string, string> = {}) {
    super(422, message, headers);
    this.fieldErrors = fieldErrors;
    this.name = "ValidationError";
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

/** A 422's entries with the value of a credential-named query parameter replaced. */
function withoutSecrets(fields: FieldErrors): FieldErrors {
  const safe: FieldErrors = {};
  for (const [key, entry] of Object.entries(fields)) {
    const name = /^query\.([^[.]+)/.exec(key)?.[1];
    safe[key] = name !== undefined && isSecretParameter(name) ? { ...entry, value: redacted } : entry;
  }
  return safe;
}

/**
 * The body of every error response. `path` is the request URL with its query string (the values of credential-named
 * parameters, `?apiKey=...`, replaced: express/redact.ts).
 */
export function errorBody(error: ApiError, req: Request, errorId?: string): ErrorBody {
  const base = transportErrorBody(error.status, error.message, redactUrl(req.originalUrl));
  if (error instanceof ValidationError) {
    // `ctx` as Novu's exception filter sends it on every 422 (docs/decisions.md D4).
    const errors = withoutSecrets(error.fieldErrors);
    return { ...base, statusCode: 422, error: "Unprocessable Entity", ctx: {}, errors };
  }
  return errorId ? { ...base, errorId } : base;
}
