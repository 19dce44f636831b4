/**
 * Request ids and request logs, at the cost of what is asked for. Every answer carries `X-Request-Id` (the caller's,
 * when well-formed, else a new UUID). A line per request (method, URL, status, time, id; never a header, so never a
 * key) is written only when the log level takes info lines. A request's own logger (`req.log`, which the skeleton's
 * error handler logs through, the id with every line) is made only when something logs through it.
 */
import { randomUUID } from "node:crypto";
import { redactUrl } from "@novu-query/express";
import type { RequestHandler } from "express";
import type { Logger } from "pino";

const wellFormed = /^[\w.:-]{1,128}$/;

/** The request's logger: the server's with the request id bound, made when first used (most requests never log). */
class RequestLogger {
  private own: Logger | undefined;
  private readonly logger: Logger;
  private readonly reqId: string;

  constructor(logger: Logger, reqId: string) {
    this.logger = logger;
    this.reqId = reqId;
  }
  private get bound(): Logger {
    this.own ??= this.logger.child({ reqId: this.reqId });
    return this.own;
  }
  info(fields: object, message: string): void {
    this.bound.info(fields, message);
  }
  warn(fields: object, message: string): void {
    this.bound.warn(fields, message);
  }
  error(fields: object, message: string): void {
    this.bound.error(fields, message);
  }
}

export function requestLog(logger: Logger): RequestHandler {
  const perRequest = logger.isLevelEnabled("info");
  return (req, res, next) => {
    const given = req.headers["x-request-id"];
    const reqId = typeof given === "string" && wellFormed.test(given) ? given : randomUUID();
    res.setHeader("X-Request-Id", reqId);
    (req as { log?: RequestLogger }).log = new RequestLogger(logger, reqId);
    if (perRequest) {
      const started = performance.now();
      res.once("finish", () => {
        const line = {
          reqId,
          req: { method: req.method, url: redactUrl(req.originalUrl) },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        };
        if (res.statusCode >= 500) logger.error(line, "request errored");
        else logger.info(line, "request completed");
      });
    }
    next();
  };
}
