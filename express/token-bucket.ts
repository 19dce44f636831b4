/**
 * A token bucket's arithmetic: refilled at `perMinute` for the time since it was last touched, never above `burst`; a
 * request takes a token when a whole one is there. A new key's bucket starts full. The memory store calls this; the
 * reference server's database does the same in one SQL statement (server/store/rate-limits.ts), and
 * test/server/token-bucket.test.ts holds the two equal step by step.
 */
import type { RateLimits, Take } from "./rate-limit.js";

export interface Bucket {
  tokens: number;
  /** When it was last touched, in milliseconds. */
  updatedAt: number;
}

export function takeToken(bucket: Bucket | undefined, now: number, { perMinute, burst }: RateLimits): Take {
  const tokens = bucket ? Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) * perMinute) / 60_000) : burst;
  const allowed = tokens >= 1;
  return { allowed, tokens: allowed ? tokens - 1 : tokens };
}
