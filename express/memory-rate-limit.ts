/**
 * Token buckets kept in this process: a key gets its rate per instance. Several instances behind a load balancer
 * need a store they share (the reference server keeps its buckets in PostgreSQL). Bounded: past `maxKeys` the least
 * recently used key goes first.
 */
import type { RateLimitStore, RateLimits, Take } from "./rate-limit.js";
import { type Bucket, takeToken } from "./token-bucket.js";

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  /** `now` is the clock in milliseconds (tests pass their own). */
  constructor({ maxKeys = 100_000, now = Date.now }: { maxKeys?: number; now?: () => number } = {}) {
    this.maxKeys = maxKeys;
    this.now = now;
  }

  take(id: string, limits: RateLimits): Take {
    const now = this.now();
    const taken = takeToken(this.buckets.get(id), now, limits);
    // Re-inserting keeps the Map in least-recently-used order, so the oldest key is the first to go.
    this.buckets.delete(id);
    this.buckets.set(id, { tokens: taken.tokens, updatedAt: now });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    return taken;
  }
}
