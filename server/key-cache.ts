/**
 * Remembers which environment an API key hash belongs to for a short time, so that a busy client costs one key
 * lookup per TTL instead of one per request, and concurrent requests with a key not yet cached share one lookup.
 * Unknown keys are not remembered (a new key works at once); a deleted key or a changed retention takes effect within
 * the TTL, across every instance. Bounded: the least recently used key goes first (lru-cache).
 */
import { LRUCache } from "lru-cache";
import type { Environment } from "./store/access.js";

type Lookup = () => Promise<Environment | undefined>;

export class KeyCache {
  private readonly cache: LRUCache<string, Environment, Lookup> | undefined;

  /** With a TTL of 0 nothing is cached. `now` is the clock in milliseconds (tests pass their own). */
  constructor(ttlMs: number, maxEntries = 10_000, now: () => number = () => performance.now()) {
    this.cache =
      ttlMs > 0
        ? new LRUCache<string, Environment, Lookup>({
            max: maxEntries,
            ttl: ttlMs,
            perf: { now },
            ttlResolution: 0,
            // An undefined answer (an unknown key) is not stored.
            fetchMethod: (_keyHash, _stale, { context }) => context(),
          })
        : undefined;
  }

  /**
   * The cached environment, at once (no promise: most requests take this path), or what `load` finds (cached when
   * found; concurrent misses of one key share one lookup).
   */
  get(keyHash: string, load: Lookup): Environment | Promise<Environment | undefined> {
    if (!this.cache) return load();
    return this.cache.get(keyHash) ?? this.cache.fetch(keyHash, { context: load });
  }
}
