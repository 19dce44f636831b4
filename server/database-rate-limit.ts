/**
 * The skeleton's rate-limit store on this server's database (server/store/rate-limits.ts), so that every API
 * instance on it draws from one bucket per key. Idle buckets are swept every `sweepEveryMs`.
 */
import type { RateLimitStore, RateLimits, Take } from "@novu-query/express";
import type { RateLimitBuckets } from "./store/rate-limits.js";

export class DatabaseRateLimitStore implements RateLimitStore {
  private readonly buckets: RateLimitBuckets;
  private readonly sweepEveryMs: number;
  private lastSweep = Date.now();

  constructor(buckets: RateLimitBuckets, sweepEveryMs = 600_000) {
    this.buckets = buckets;
    this.sweepEveryMs = sweepEveryMs;
  }

  take(id: string, { perMinute, burst }: RateLimits): Promise<Take> {
    if (Date.now() - this.lastSweep > this.sweepEveryMs) {
      this.lastSweep = Date.now();
      // A bucket refills whole in burst / rate; untouched twice that long, it is as good as absent.
      const fullAfterSeconds = Math.ceil((burst / perMinute) * 60);
      this.buckets.sweep(2 * fullAfterSeconds).catch(() => {});
    }
    return this.buckets.take(id, burst, perMinute / 60);
  }
}
