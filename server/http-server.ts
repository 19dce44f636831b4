import { createServer, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Express, RequestHandler } from "express";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { ApiError, reasonPhrase, transportErrorBody } from "./errors.js";
import { messages } from "./messages.js";

type Limits = Pick<Config, "maxHeaderBytes" | "requestTimeoutMs">;

/**
 * The HTTP server around the app, with its limits. Requests Node refuses before Express sees them (a head over
 * MAX_HEADER_BYTES, a request slower than REQUEST_TIMEOUT_MS, bytes that are not HTTP) still get our error shape.
 */
export function createHttpServer(app: Express, limits: Limits, logger: Logger): Server {
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      // How often Node looks for requests over the time limit (its default, 30 s, is coarser than the limit itself).
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(limits.requestTimeoutMs / 4))),
    },
    app,
  );
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = Math.min(60_000, limits.requestTimeoutMs);
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") return socket.destroy();
    const [status, message] =
      error.code === "HPE_HEADER_OVERFLOW"
        ? [431, messages.headersTooLarge(limits.maxHeaderBytes)]
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, messages.receiveTimeout(limits.requestTimeoutMs)]
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
