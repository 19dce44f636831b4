/**
 * The only place that writes an error response, and the 404 for a path no route answers. A library's error (the
 * validator's, the body parser's) becomes the documented answer; anything else is a 500 that is logged with its
 * errorId and says nothing of its cause.
 */
import { randomUUID } from "node:crypto";
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { contractMethodsAt } from "./contract-routes.js";
import { ApiError, type ErrorBody, errorBody } from "./errors.js";
import { fromBodyParser, fromDecoding, fromValidator, isValidatorError, responseMismatch } from "./library-errors.js";
import { type Logger, loggerFor, stderrLogger } from "./logger.js";
import { messages } from "./messages.js";
import { operationOf } from "./request-metadata.js";

// Sent as text, past the response validator: a scaffolded 501 is not a status the spec declares, and an error
// answer must never turn into a second error. The error bodies are typed by ErrorDto and tested directly.
function send(res: Response, body: ErrorBody): void {
  res.type("application/json").send(JSON.stringify(body));
}

/**
 * Answers every error in the documented shape; mount it last, after `notFound`. `translate` answers errors of the
 * app's own that have a documented answer (a database that cannot be reached as 503), wherever they were thrown: in a
 * handler, or in `authenticate`.
 */
export function errorHandler(
  logger: Logger = stderrLogger,
  translate?: ((error: unknown) => ApiError | undefined) | undefined,
): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    let apiError: ApiError | undefined;
    try {
      apiError = error instanceof ApiError ? error : translate?.(error);
      if (!apiError && typeof error?.type === "string") apiError = fromBodyParser(error, req);
      else if (!apiError) apiError = fromDecoding(error, req);
      if (!apiError && isValidatorError(error) && error.status < 500) apiError = fromValidator(error, req);
    } catch {
      apiError = undefined;
    }
    if (!apiError || apiError.status === 500) {
      const errorId = randomUUID();
      const mismatch = responseMismatch(error);
      if (mismatch) {
        const operation = operationOf(req);
        loggerFor(req, logger).error(
          { errorId, operation, problems: mismatch },
          `the ${operation} handler's answer does not match the contract: ${mismatch.join("; ")}`,
        );
      } else loggerFor(req, logger).error({ err: error, errorId }, "request failed");
      send(res.status(500), errorBody(new ApiError(500, messages.internal), req, errorId));
      return;
    }
    send(res.set(apiError.headers).status(apiError.status), errorBody(apiError, req));
  };
}

/**
 * 405 with `Allow` for a contract path asked with a method the contract does not have there (the router passes such
 * requests on, so that the host app may answer them); any other request passes on.
 */
export const methodNotAllowed: RequestHandler = (req, _res, next) => {
  const allowed = contractMethodsAt(req.path);
  if (allowed.length === 0) return next();
  next(new ApiError(405, messages.methodNotAllowed(req.method, req.path), { Allow: allowed.join(", ") }));
};

/** 404 `Cannot GET /path` for a request no route answered, in the error shape. */
export const notFound: RequestHandler = (req, _res, next) =>
  next(ApiError.notFound(messages.routeNotFound(req.method, req.path)));
