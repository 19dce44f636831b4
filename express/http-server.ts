import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { RequestHandler } from "express";
import { ApiError, reasonPhrase, transportErrorBody } from "./errors.js";
import { type Logger, stderrLogger } from "./logger.js";
import { messages } from "./messages.js";
import { redactUrl } from "./redact.js";
import { workStarted } from "./work-started.js";

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
      // Node answers an HTTP/1.1 request without Host with a bare 400; `requireHost` answers it in the error shape.
      requireHostHeader: false,
      // How often Node looks for heads over the time limit (its default, 30 s, is coarser than the limit itself).
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(requestTimeoutMs / 4))),
    },
    (req, res) => {
      // Node may still dispatch a request whose bytes it parsed after its own refusal went out (a head it timed out
      // while the event loop was busy): that connection was answered, so the request is dropped, never handled.
      if (refused.has(req.socket)) return void req.socket.destroy();
      receiveTimeout(req, res, requestTimeoutMs);
      app(req, res);
    },
  );
  // Node's own request timeout also ends requests that arrived whole and are being answered (a PATCH that may commit
  // after its 408 said it was not received): it is off, and `receiveTimeout` times the arrival alone.
  server.requestTimeout = 0;
  server.headersTimeout = Math.min(60_000, requestTimeoutMs);
  const refused = new WeakSet<Duplex>();
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    refused.add(socket);
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

/**
 * 408 for a request whose body has not arrived whole within the limit (counted from its head): the connection is
 * closed, so its handler, which waits for the body, never runs, and "not received" stays true. A request received
 * whole is never answered 408, however long its answer takes (that is `answerTimeout`'s).
 */
function receiveTimeout(req: IncomingMessage, res: ServerResponse, timeoutMs: number): void {
  if (timeoutMs <= 0) return;
  const timer = setTimeout(() => {
    if (req.complete || res.headersSent) return;
    const path = redactUrl(req.url ?? "");
    const body = JSON.stringify(transportErrorBody(408, messages.receiveTimeout(timeoutMs), path));
    res.writeHead(408, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      Connection: "close",
    });
    res.end(body, () => req.socket.destroy());
  }, timeoutMs);
  timer.unref();
  const stop = () => clearTimeout(timer);
  req.once("end", stop);
  res.once("close", stop);
}

/** 400 in the error shape for an HTTP/1.1 request without `Host` (RFC 9112 3.2), which Node is told to let through. */
export const requireHost: RequestHandler = (req, _res, next) =>
  next(
    req.httpVersion === "1.1" && req.headers.host === undefined ? ApiError.badRequest(messages.missingHost) : undefined,
  );

/** 414 for a URL longer than the limit, before anything parses it. */
export function urlLengthLimit(maxLength: number): RequestHandler {
  return (req, _res, next) =>
    next(req.originalUrl.length > maxLength ? new ApiError(414, messages.urlTooLong(maxLength)) : undefined);
}

/**
 * 503 with `Retry-After` for a request still unanswered after the time limit (a stuck query, say). The work itself is
 * not cut, so the answer says what is known: a request whose handler has not started never will (the binding checks),
 * and is safe to retry; a write whose handler has started may still be applied, and is retried safely with the same
 * idempotency key (its answer, or 409 while it runs).
 */
export function answerTimeout(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      const write = req.method !== "GET" && req.method !== "HEAD";
      const message =
        write && workStarted(res) ? messages.answerTimeoutWriteUnderWay(timeoutMs) : messages.answerTimeout(timeoutMs);
      next(new ApiError(503, message, { "Retry-After": "1" }));
    }, timeoutMs);
    timer.unref();
    res.once("close", () => clearTimeout(timer));
    next();
  };
}
