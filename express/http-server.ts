import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { RequestHandler } from "express";
import { answered, capConnections, giveUpOnStalledReaders, inOrder, rawErrorAnswer } from "./connections.js";
import { ApiError, transportErrorBody } from "./errors.js";
import { type Logger, stderrLogger } from "./logger.js";
import { messages } from "./messages.js";
import { redactUrl } from "./redact.js";
import { workStarted } from "./work-started.js";

export interface HttpLimits {
  /** Largest request head, in bytes: 431 above it (default 16384). A head too long for its request line is 414. */
  maxHeaderBytes?: number;
  /** Longest URL: 414 above it (default 8192). */
  maxUrlLength?: number;
  /** Longest a request's body may take to arrive, from its head: 408 past it (default 30000). */
  requestTimeoutMs?: number;
  /** Longest a request's head may take to arrive, a connection that sends nothing included: 408 past it (default 10000). */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open after an answer (default 5000). */
  keepAliveTimeoutMs?: number;
  /** How long a client may leave an answer unread (no progress) before the connection is dropped (default 30000). */
  writeStallTimeoutMs?: number;
  /** Open connections at most: a new one past it is answered 503 with `Retry-After` (default 10000). */
  maxConnections?: number;
}

/**
 * The HTTP server around an app, with its limits. Requests Node refuses before Express sees them (a head over
 * `maxHeaderBytes`, a request slower than its time limits, bytes that are not HTTP, an `Expect` it cannot meet,
 * `CONNECT`) still get the error shape; so does a connection past `maxConnections`. Pipelined requests are handled in
 * the order sent, one at a time, and a refusal of bytes that follow a valid request waits for that request's answer.
 */
export function createHttpServer(
  app: RequestListener,
  {
    maxHeaderBytes = 16_384,
    maxUrlLength = 8192,
    requestTimeoutMs = 30_000,
    headersTimeoutMs = Math.min(10_000, requestTimeoutMs),
    keepAliveTimeoutMs = 5000,
    writeStallTimeoutMs = 30_000,
    maxConnections = 10_000,
  }: HttpLimits = {},
  logger: Logger = stderrLogger,
): Server {
  const refused = new WeakSet<Duplex>();
  const server = createServer(
    {
      maxHeaderSize: maxHeaderBytes,
      // Node answers an HTTP/1.1 request without Host with a bare 400; `requireHost` answers it in the error shape.
      requireHostHeader: false,
      // How often Node looks for heads over the time limit (its default, 30 s, is coarser than the limit itself).
      connectionsCheckingInterval: Math.min(
        30_000,
        Math.max(50, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4)),
      ),
    },
    (req, res) => {
      // Node may still dispatch a request whose bytes it parsed after its own refusal went out (a head it timed out
      // while the event loop was busy): that connection was answered, so the request is dropped, never handled.
      if (refused.has(req.socket)) return void req.socket.destroy();
      inOrder(req, res, () => {
        if (res.destroyed) return;
        receiveTimeout(req, res, requestTimeoutMs);
        toOriginForm(req);
        app(req, res);
      });
    },
  );
  // Node's own request timeout also ends requests that arrived whole and are being answered (a PATCH that may commit
  // after its 408 said it was not received): it is off, and `receiveTimeout` times the arrival alone.
  server.requestTimeout = 0;
  server.headersTimeout = headersTimeoutMs;
  server.keepAliveTimeout = keepAliveTimeoutMs;
  capConnections(server, maxConnections, refused, logger);
  const stopSweeps = giveUpOnStalledReaders(server, writeStallTimeoutMs);
  server.once("close", stopSweeps);
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    refused.add(socket);
    if (!socket.writable || error.code === "ECONNRESET") return socket.destroy();
    const [status, message] = clientErrorAnswer(error, maxHeaderBytes, maxUrlLength, headersTimeoutMs);
    logger.info({ code: error.code, status }, "refused a request before routing");
    // Bytes that are not HTTP after a valid request: that request is answered first (it may have been applied).
    void answered(socket).then(() => socket.end(rawErrorAnswer(status, message)));
  });
  // `Expect` other than 100-continue: Node's bare 417, in the error shape.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(
      transportErrorBody(417, messages.expectationFailed(String(req.headers.expect)), redactUrl(req.url ?? "")),
    );
    res.writeHead(417, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  });
  // CONNECT asks for a tunnel, which this server is not: answered, not left hanging.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorAnswer(405, messages.methodNotAllowed("CONNECT", "this server"), { Allow: "GET, PATCH" }));
  });
  return server;
}

/** The status and message of a request Node refused before Express. */
function clientErrorAnswer(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  maxHeaderBytes: number,
  maxUrlLength: number,
  headersTimeoutMs: number,
): [number, string] {
  if (error.code === "HPE_HEADER_OVERFLOW") {
    // A head too large because of its URL is the URL's fault: 414, as a URL over the limit in a small head is.
    const requestLine = (error.rawPacket?.toString("latin1") ?? "").split("\r\n", 1)[0] ?? "";
    return requestLine.length > maxUrlLength
      ? [414, messages.urlTooLong(maxUrlLength)]
      : [431, messages.headersTooLarge(maxHeaderBytes)];
  }
  // Node times out the head only (its request timeout is off): `receiveTimeout` answers a body too slow.
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, messages.receiveTimeout(headersTimeoutMs)];
  return [400, messages.malformedHttp];
}

/** An absolute-form target (`GET http://host/v1/notifications`), which RFC 9112 §3.2.2 says to accept, as a path. */
function toOriginForm(req: IncomingMessage): void {
  const url = req.url ?? "";
  if (!/^https?:\/\//i.test(url)) return;
  try {
    const parsed = new URL(url);
    req.url = `${parsed.pathname}${parsed.search}`;
  } catch {
    // Not a URL after all: the routes answer it as the path it is.
  }
}

/** Whether a request has a body still to come: a length that is not 0, or a chunked one. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * 408 for a request whose body has not arrived whole within the limit (counted from its head): the connection is
 * closed, so its handler, which waits for the body, never runs, and "not received" stays true. A request received
 * whole is never answered 408, however long its answer takes (that is `answerTimeout`'s); one without a body has
 * arrived whole with its head, and gets no timer.
 */
function receiveTimeout(req: IncomingMessage, res: ServerResponse, timeoutMs: number): void {
  if (timeoutMs <= 0 || !hasBody(req)) return;
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

/**
 * 400 in the error shape for an HTTP/1.1 request without `Host`, and for any request with more than one (RFC 9112
 * §3.2; Node, told to let them through, would keep the first).
 */
export const requireHost: RequestHandler = (req, _res, next) => {
  const hosts = req.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === "host").length;
  if (hosts > 1) return next(ApiError.badRequest(messages.oneHost));
  next(req.httpVersion === "1.1" && hosts === 0 ? ApiError.badRequest(messages.missingHost) : undefined);
};

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
