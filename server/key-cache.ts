/**
 * Remembers which environment an API key hash belongs to for a short time, so that a busy client costs one key
 * lookup per TTL instead of one per request. Unknown keys are not remembered (a new key works at once); a deleted key
 * or a changed retention takes effect within the TTL, across every instance. Bounded: the oldest entry goes first.
 */
import type { Environment } from "./store/access.js";

export class KeyCache {
  private readonly entries = new Map<string, { environment: Environment; expiresAt: number }>();

  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(ttlMs: number, maxEntries = 10_000, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
    this.now = now;
  }

  /** The cached environment, or what `load` finds (cached when found). With a TTL of 0, always `load`. */
  async get(keyHash: string, load: () => Promise<Environment | undefined>): Promise<Environment | undefined> {
    if (this.ttlMs <= 0) return load();
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresAt > this.now()) return hit.environment;
    this.entries.delete(keyHash);
    const environment = await load();
    if (environment) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(keyHash, { environment, expiresAt: this.now() + this.ttlMs });
    }
    return environment;
  }
}
