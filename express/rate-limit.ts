/**
 * Rate limiting per API key with Novu's headers: a token bucket of `burst` tokens refilled at `perMinute`, every
 * answer with `RateLimit-Limit`, `-Remaining`, `-Reset` and `RateLimit-Policy`, and 429 with `Retry-After` past it.
 * Where the buckets live is the app's choice: a `RateLimitStore` (memory-rate-limit.ts keeps them in this process).
 */
import type { Request, RequestHandler } from "express";
import { callerOf } from "./authenticate.js";
import { ApiError } from "./errors.js";
import { type Logger, loggerFor } from "./logger.js";
import { messages } from "./messages.js";

export interface RateLimits {
  /** Requests a minute, per API key. */
  perMinute: number;
  /** Requests a key may make at once before the rate applies. */
  burst: number;
}

/** One take from a bucket: whether it held a token, and how many it holds after. */
export interface Take {
  allowed: boolean;
  tokens: number;
}

/** Where the token buckets live: in this process, or somewhere every instance shares. */
export interface RateLimitStore {
  /** Takes one token from the bucket `id` (at most `burst` tokens, refilled at `perMinute` a minute). */
  take(id: string, limits: RateLimits): Take | Promise<Take>;
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

/** What a take means for the answer's headers. */
export function decide({ allowed, tokens }: Take, { perMinute, burst }: RateLimits): Decision {
  const refillPerSecond = perMinute / 60;
  return {
    allowed,
    limit: burst,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((burst - tokens) / refillPerSecond),
    retryAfterSeconds: allowed ? 0 : Math.ceil((1 - tokens) / refillPerSecond),
  };
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
 * seconds, the burst, then quoted: the algorithm, the category, the cost and the service level. There are no plans
 * here, so, like a self-hosted Novu, it reports the `unlimited` service level; every request costs `single`.
 */
export function policyHeader({ perMinute, burst }: RateLimits, path: string): string {
  return [
    `${perMinute}`,
    "w=60",
    `burst=${burst}`,
    'comment="token bucket"',
    `category="${categoryOf(path)}"`,
    'cost="single"',
    'serviceLevel="unlimited"',
  ].join(";");
}

/**
 * Applies the key's bucket to every request that passed authentication and sends the RateLimit headers; over the
 * limit, 429. When the store cannot be asked, the request goes on unlimited (logged): the limit protects the service,
 * and a request that would fail for it is better refused by what it needs the store for.
 */
export function rateLimit(store: RateLimitStore, limits: RateLimits, logger: Logger): RequestHandler {
  return async (req, res, next) => {
    const keyHash = callerOf(res)?.keyHash;
    if (!keyHash) return next();
    let decision: Decision;
    try {
      decision = decide(await store.take(keyHash, limits), limits);
    } catch (err) {
      loggerFor(req, logger).warn({ err }, "rate limit not applied: its bucket could not be read");
      return next();
    }
    res.set({
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(decision.resetSeconds),
      "RateLimit-Policy": policyHeader(limits, req.path),
    });
    if (decision.allowed) return next();
    next(new ApiError(429, messages.rateLimited, { "Retry-After": String(decision.retryAfterSeconds) }));
  };
}

/**
 * Unknown API keys, limited per client address: each costs the app a key lookup, and a client trying keys would
 * otherwise never meet a limit (the buckets above are per valid key). Every 401 `API Key not found` takes a token from
 * the address's bucket (same rate and burst); once it is empty, the address's requests are answered 429 with
 * `Retry-After` before any lookup until the bucket refills, except those with a key that authenticated in the last
 * minute: behind a proxy many clients share an address, and one of them trying keys must not lock the others out.
 * Kept in this process: the waiting addresses and the recent keys, at most 10,000 of each.
 */
export class UnknownKeyLimiter {
  private readonly waiting = new Map<string, number>();
  /** Key hashes that authenticated recently, and until when they count as recent. */
  private readonly recentKeys = new Map<string, number>();
  private readonly store: RateLimitStore;
  private readonly limits: RateLimits;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(store: RateLimitStore, limits: RateLimits, logger: Logger, now: () => number = Date.now) {
    this.store = store;
    this.limits = limits;
    this.logger = logger;
    this.now = now;
  }

  /** Before the lookup: 429 for a waiting address, unless this key authenticated in the last minute. */
  beforeLookup(req: Request, keyHash: string): ApiError | undefined {
    const address = req.ip ?? "unknown";
    const until = this.waiting.get(address);
    if (until === undefined) return undefined;
    const now = this.now();
    if ((this.recentKeys.get(keyHash) ?? 0) > now) return undefined;
    const seconds = Math.ceil((until - now) / 1000);
    if (seconds <= 0) {
      this.waiting.delete(address);
      return undefined;
    }
    return new ApiError(429, messages.rateLimited, { "Retry-After": String(seconds) });
  }

  /** A key that authenticated: it passes its address's wait for a minute. */
  knownKey(keyHash: string): void {
    if (this.recentKeys.size >= 10_000) this.recentKeys.clear();
    this.recentKeys.set(keyHash, this.now() + 60_000);
  }

  /** After a key was not found: the 429 that replaces the 401 once the address is over its limit, else undefined. */
  async unknownKey(req: Request): Promise<ApiError | undefined> {
    const address = req.ip ?? "unknown";
    let decision: Decision;
    try {
      decision = decide(await this.store.take(`unknown-key:${address}`, this.limits), this.limits);
    } catch (err) {
      loggerFor(req, this.logger).warn({ err }, "unknown-key limit not applied: its bucket could not be read");
      return undefined;
    }
    if (decision.allowed) return undefined;
    if (this.waiting.size >= 10_000) this.waiting.clear();
    this.waiting.set(address, this.now() + decision.retryAfterSeconds * 1000);
    return new ApiError(429, messages.rateLimited, { "Retry-After": String(decision.retryAfterSeconds) });
  }
}
