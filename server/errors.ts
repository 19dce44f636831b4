import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "pino";
import type { ConstraintValidation, ErrorDto, ValidationErrorDto } from "../generated/schema.js";
import { fromBodyParser, fromValidator, isValidatorError } from "./library-errors.js";
import { messages } from "./messages.js";

export type FieldErrors = Record<string, ConstraintValidation>;

/**
 * The one error type: everything that answers with an error throws one of these (or lets the middleware map it).
 * Handlers make theirs with their operation's helpers (server/operation-errors.ts), which allow declared statuses only.
 */
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

/** The body of every error response. `path` is the request URL with its query string. */
export function errorBody(error: ApiError, req: Request, errorId?: string): ErrorBody {
  const base = transportErrorBody(error.status, error.message, req.originalUrl);
  if (error instanceof ValidationError) {
    return { ...base, statusCode: 422, error: "Unprocessable Entity", errors: error.fieldErrors };
  }
  return errorId ? { ...base, errorId } : base;
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
