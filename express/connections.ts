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

/** The latest answer begun on each connection, for `answered`. */
const latest = new WeakMap<Duplex, ServerResponse>();

/**
 * Runs `handle` once every earlier request of the same connection has been answered. Node already sends a
 * connection's answers in order: an answer to a request that arrived while the one before was unanswered gets the
 * connection (its `socket`, and the `socket` event) only once that one has finished or closed. So a request that has
 * its socket runs at once, and nothing is allocated for it; one waiting behind another runs when it gets it (never,
 * if the connection closes first).
 */
export function inOrder(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  latest.set(req.socket, res);
  if (res.socket) handle();
  else res.once("socket", handle);
}

/** Resolves once the connection's requests so far have been answered (at once when none is in progress). */
export function answered(socket: Duplex): Promise<void> {
  const res = latest.get(socket);
  if (!res || res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    res.once("finish", resolve);
    res.once("close", resolve);
  });
}

/**
 * A connection whose written bytes have not moved on for `timeoutMs` while some wait to be sent (the client stopped
 * reading its answer) is destroyed, and its answer dropped; nothing else times out a client that simply stops reading.
 * One sweep every `timeoutMs` over the open connections, not a watch per answer: an answer costs nothing here. A
 * connection is given up between one and two periods after it stopped making progress. Returns a function that stops
 * the sweeps (when the server closes).
 */
export function giveUpOnStalledReaders(server: Server, timeoutMs: number): () => void {
  if (timeoutMs <= 0) return () => {};
  const pending = new Map<Socket, number>();
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      pending.delete(socket);
    });
  });
  const sweep = setInterval(() => {
    for (const socket of sockets) {
      if (socket.writableLength === 0) {
        pending.delete(socket);
        continue;
      }
      const written = socket.bytesWritten;
      if (pending.get(socket) === written) {
        pending.delete(socket);
        socket.destroy();
      } else {
        pending.set(socket, written);
      }
    }
  }, timeoutMs);
  sweep.unref();
  return () => clearInterval(sweep);
}
