import { createServer, type RequestListener, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { RequestHandler } from "express";
import { ApiError, reasonPhrase, transportErrorBody } from "./errors.js";
import { type Logger, stderrLogger } from "./logger.js";
import { messages } from "./messages.js";

export interface HttpLimits {
  /** Largest request head, in bytes: 431 above it (default 16384). */
  maxHeaderBytes?: number;
  /** Longest a request may take to arrive: 408 past it (default 30000). */
  requestTimeoutMs?: number;
}

/**
 * The HTTP server around an app, with its limits. Requests Node refuses before Express sees them (a head over
 * `maxHeaderBytes`, a request slower than `requestTimeoutMs`, bytes that are not HTTP) still get the error shape.
 */
export function createHttpServer(
  app: RequestListener,
  { maxHeaderBytes = 16_384, requestTimeoutMs = 30_000 }: HttpLimits = {},
  logger: Logger = stderrLogger,
): Server {
  const server = createServer(
    {
      maxHeaderSize: maxHeaderBytes,
      // How often Node looks for requests over the time limit (its default, 30 s, is coarser than the limit itself).
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(requestTimeoutMs / 4))),
    },
    app,
  );
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = Math.min(60_000, requestTimeoutMs);
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") return socket.destroy();
    const [status, message] =
      error.code === "HPE_HEADER_OVERFLOW"
        ? [431, messages.headersTooLarge(maxHeaderBytes)]
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, messages.receiveTimeout(requestTimeoutMs)]
          : [400, messages.malformedHttp];
    logger.info({ code: error.code, status }, "refused a request before routing");
    const body = JSON.stringify(transportErrorBody(status, message, ""));
    socket.end(
      `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

/** 414 for a URL longer than the limit, before anything parses it. */
export function urlLengthLimit(maxLength: number): RequestHandler {
  return (req, _res, next) =>
    next(req.originalUrl.length > maxLength ? new ApiError(414, messages.urlTooLong(maxLength)) : undefined);
}

/** 503 for a request still unanswered after the time limit (a stuck query, say); the work itself is not cut. */
export function answerTimeout(timeoutMs: number): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) next(new ApiError(503, messages.answerTimeout(timeoutMs)));
    }, timeoutMs);
    timer.unref();
    res.once("close", () => clearTimeout(timer));
    next();
  };
}
