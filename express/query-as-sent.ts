/**
 * The query string as the client sent it. Express reads `req.query` from `req.url`, which a host may have rewritten:
 * @fastify/express hands Express a `req.url` with its percent-escapes decoded, so `name=%20liskov%20` arrived as
 * `name= liskov `, and the URL parser dropped the trailing space (the conformance suite's padded terms found it).
 * `req.originalUrl` keeps what was sent; the contract's requests read their query from it, with Express's own
 * parser (node:querystring, the `simple` query parser).
 */
import { parse } from "node:querystring";
import type { RequestHandler } from "express";

export const queryAsSent: RequestHandler = (req, _res, next) => {
  const at = req.originalUrl.indexOf("?");
  const query = parse(at < 0 ? "" : req.originalUrl.slice(at + 1));
  Object.defineProperty(req, "query", { value: query, writable: true, configurable: true, enumerable: true });
  next();
};
