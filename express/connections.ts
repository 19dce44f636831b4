/**
 * What the HTTP server does per connection, below Express: a cap on open connections answered 503 (rather than
 * descriptors exhausted and every new client, health checks included, given an empty reply), pipelined requests
 * handled one after another in the order sent (RFC 9112 §9.3.2: on PostgreSQL, pipelined PATCHes ran at once and
 * were applied out of order), and an answer the client stops reading given up after a while (140 clients that never
 * read 10 MB pages held a gigabyte).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { reasonPhrase, transportErrorBody } from "./errors.js";
import type { Logger } from "./logger.js";
import { messages } from "./messages.js";

/** An answer written straight to a socket, in the error shape, before or instead of Express. */
export function rawErrorAnswer(status: number, message: string, headers: Record<string, string> = {}): string {
  const body = JSON.stringify(transportErrorBody(status, message, ""));
  const lines = Object.entries({
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    ...headers,
    Connection: "close",
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\n${lines.join("")}\r\n${body}`;
}

/**
 * Past `max` open connections, a new one is answered 503 with `Retry-After` and closed; `refused` learns it, so that
 * a request parsed from it anyway is dropped.
 */
export function capConnections(server: Server, max: number, refused: WeakSet<Duplex>, logger: Logger): void {
  let open = 0;
  let warned = false;
  server.on("connection", (socket: Socket) => {
    if (open >= max) {
      refused.add(socket);
      if (!warned) logger.warn({ maxConnections: max }, "refusing connections past MAX_CONNECTIONS with 503");
      warned = true;
      socket.end(rawErrorAnswer(503, messages.overloaded, { "Retry-After": "1" }));
      socket.destroySoon?.();
      return;
    }
    open += 1;
    socket.once("close", () => {
      open -= 1;
      if (open < max) warned = false;
    });
  });
}

/** The answer in progress on each connection: the next pipelined request waits for it. */
const inFlight = new WeakMap<Duplex, Promise<void>>();

/** Runs `handle` once every earlier request of the same connection has been answered. */
export function inOrder(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const socket = req.socket;
  const previous = inFlight.get(socket);
  const done = new Promise<void>((resolve) => {
    res.once("finish", resolve);
    res.once("close", resolve);
  });
  inFlight.set(socket, done);
  if (previous) previous.then(handle);
  else handle();
}

/** Resolves once the connection's requests so far have been answered (at once when none is in progress). */
export function answered(socket: Duplex): Promise<void> {
  return inFlight.get(socket) ?? Promise.resolve();
}

/**
 * Once an answer has been handed to the socket, the client has `timeoutMs` to make progress reading it (the socket's
 * bytes written must grow) before the connection is destroyed and the answer dropped; nothing else times out a client
 * that simply stops reading. A watch of its own, not the socket's timeout, which Node's keep-alive timeout uses.
 */
export function giveUpOnStalledReaders(res: ServerResponse, timeoutMs: number): void {
  if (timeoutMs <= 0) return;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const result = end(...args);
    watchProgress(res, timeoutMs);
    return result;
  }) as ServerResponse["end"];
}

function watchProgress(res: ServerResponse, timeoutMs: number): void {
  if (res.writableFinished) return;
  let written = -1;
  const timer = setInterval(() => {
    const socket = res.socket;
    if (!socket) return;
    if (socket.bytesWritten === written) {
      clearInterval(timer);
      socket.destroy();
      return;
    }
    written = socket.bytesWritten;
  }, timeoutMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  res.once("finish", stop);
  res.once("close", stop);
}
