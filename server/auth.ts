import type { RequestHandler } from "express";
import { ApiError } from "./errors.js";
import { KeyCache } from "./key-cache.js";
import { messages } from "./messages.js";
import { type Environment, hashApiKey } from "./store/access.js";
import type { Store } from "./store/store.js";

export interface AuthContext extends Environment {
  /** The retention that applies: the environment's own, else the server default; null is unlimited. */
  effectiveRetentionDays: number | null;
  /** SHA-256 of the key: what rate limiting counts by, and safe to log. */
  keyHash: string;
}

declare global {
  namespace Express {
    interface Locals {
      auth?: AuthContext;
    }
  }
}

/** `Authorization: ApiKey <key>` with Novu's four 401 messages. The scheme word is case-sensitive. */
export function authenticate(
  store: Store,
  defaultRetentionDays: number | undefined,
  cache: KeyCache = new KeyCache(0),
): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined) return next(ApiError.unauthorized(messages.missingAuthorization));
    const [scheme = "", ...rest] = header.trim().split(/\s+/);
    if (scheme !== "ApiKey") {
      return next(ApiError.unauthorized(messages.invalidScheme(scheme.slice(0, 64))));
    }
    const key = rest.join(" ");
    if (key === "") return next(ApiError.unauthorized(messages.emptyKey));
    try {
      const keyHash = hashApiKey(key);
      const environment = await cache.get(keyHash, () => store.access.environmentForKeyHash(keyHash));
      if (!environment) return next(ApiError.unauthorized(messages.keyNotFound));
      res.locals.auth = {
        ...environment,
        keyHash,
        effectiveRetentionDays: environment.retentionDays ?? defaultRetentionDays ?? null,
      };
      next();
    } catch (error) {
      next(error);
    }
  };
}
