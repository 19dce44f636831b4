import type { RequestHandler } from "express";
import { ApiError } from "./errors.js";
import { messages } from "./messages.js";

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one more request is allowed (0 when allowed). */
  retryAfterSeconds: number;
}

/** One token bucket per API key: `burst` requests at once, refilled at `perMinute` per minute. In-process. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  readonly perMinute: number;
  readonly burst: number;
  private readonly now: () => number;
  private readonly maxKeys: number;

  constructor(perMinute: number, burst: number, now: () => number = Date.now, maxKeys = 100_000) {
    this.perMinute = perMinute;
    this.burst = burst;
    this.now = now;
    this.maxKeys = maxKeys;
    this.refillPerMs = perMinute / 60_000;
  }

  take(id: string): Decision {
    const now = this.now();
    const stored = this.buckets.get(id);
    const tokens = stored
      ? Math.min(this.burst, stored.tokens + (now - stored.updatedAt) * this.refillPerMs)
      : this.burst;
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    // Re-inserting keeps the Map in least-recently-used order, so the oldest key is the first to go.
    this.buckets.delete(id);
    this.buckets.set(id, { tokens: left, updatedAt: now });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(left),
      resetSeconds: Math.ceil((this.burst - left) / this.refillPerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.ceil((1 - left) / this.refillPerMs / 1000),
    };
  }
}

/**
 * The category Novu's throttler puts an operation in: its v2 subscribers controller is `configuration`
 * (`@ThrottlerCategory(ApiRateLimitCategoryEnum.CONFIGURATION)`), its notifications controller the default, `global`.
 */
function categoryOf(path: string): "configuration" | "global" {
  return path.startsWith("/v2/subscribers") ? "configuration" : "global";
}

/**
 * `RateLimit-Policy` in the seven parts of Novu's throttler guard (`createPolicyHeader`): the limit, the window in
 * seconds, the burst, then quoted: the algorithm, the category, the cost and the service level. This server has no
 * plans, so, like a self-hosted Novu, it reports the `unlimited` service level; every request costs `single`.
 */
export function policyHeader(buckets: Pick<TokenBuckets, "perMinute" | "burst">, path: string): string {
  return [
    `${buckets.perMinute}`,
    "w=60",
    `burst=${buckets.burst}`,
    'comment="token bucket"',
    `category="${categoryOf(path)}"`,
    'cost="single"',
    'serviceLevel="unlimited"',
  ].join(";");
}

/** Applies the key's bucket to every API request and sends the RateLimit headers; over the limit, 429. */
export function rateLimit(buckets: TokenBuckets): RequestHandler {
  return (req, res, next) => {
    const key = res.locals.auth?.keyHash;
    if (!key) return next();
    const decision = buckets.take(key);
    res.set({
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(decision.resetSeconds),
      "RateLimit-Policy": policyHeader(buckets, req.path),
    });
    if (decision.allowed) return next();
    next(new ApiError(429, messages.rateLimited, { "Retry-After": String(decision.retryAfterSeconds) }));
  };
}
