import type { RequestHandler } from "express";
import type { Logger } from "pino";
import { ApiError } from "./errors.js";
import { messages } from "./messages.js";
import type { RateLimitStore } from "./store/rate-limits.js";

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

/** The answer for a bucket of `burst` tokens refilled at `refillPerMs`, with `left` tokens after this request. */
function decide(left: number, allowed: boolean, burst: number, refillPerMs: number): Decision {
  return {
    allowed,
    limit: burst,
    remaining: Math.floor(left),
    resetSeconds: Math.ceil((burst - left) / refillPerMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.ceil((1 - left) / refillPerMs / 1000),
  };
}

/** What the middleware takes tokens from: in this process, or in the database for every instance. */
export interface RateBuckets {
  readonly perMinute: number;
  readonly burst: number;
  take(id: string): Decision | Promise<Decision>;
}

/** One token bucket per API key: `burst` requests at once, refilled at `perMinute` per minute. In-process. */
export class TokenBuckets implements RateBuckets {
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
    return decide(left, allowed, this.burst, this.refillPerMs);
  }
}

/**
 * The same token buckets kept in the database (server/store/rate-limits.ts), so that every API instance on it
 * draws from one bucket per key. Idle buckets are swept every `sweepEveryMs`.
 */
export class DatabaseTokenBuckets implements RateBuckets {
  readonly perMinute: number;
  readonly burst: number;
  private readonly store: RateLimitStore;
  private readonly sweepEveryMs: number;
  private lastSweep = Date.now();

  constructor(store: RateLimitStore, perMinute: number, burst: number, sweepEveryMs = 600_000) {
    this.store = store;
    this.perMinute = perMinute;
    this.burst = burst;
    this.sweepEveryMs = sweepEveryMs;
  }

  async take(id: string): Promise<Decision> {
    if (Date.now() - this.lastSweep > this.sweepEveryMs) {
      this.lastSweep = Date.now();
      // A bucket refills whole in burst / rate; untouched twice that long, it is as good as absent.
      const fullAfterSeconds = Math.ceil((this.burst / this.perMinute) * 60);
      this.store.sweep(2 * fullAfterSeconds).catch(() => {});
    }
    const { tokens, allowed } = await this.store.take(id, this.burst, this.perMinute / 60);
    return decide(tokens, allowed, this.burst, this.perMinute / 60_000);
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
export function policyHeader(buckets: Pick<RateBuckets, "perMinute" | "burst">, path: string): string {
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

/**
 * Applies the key's bucket to every API request and sends the RateLimit headers; over the limit, 429. When the
 * database cannot be asked, the request goes on unlimited (logged): the limit protects the service, and a request
 * that would fail for it is better refused by what it needs the database for.
 */
export function rateLimit(buckets: RateBuckets, logger?: Logger): RequestHandler {
  return async (req, res, next) => {
    const key = res.locals.auth?.keyHash;
    if (!key) return next();
    let decision: Decision;
    try {
      decision = await buckets.take(key);
    } catch (err) {
      (req.log ?? logger)?.warn({ err }, "rate limit not applied: its bucket could not be read");
      return next();
    }
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
