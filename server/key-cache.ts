/**
 * Remembers which environment an API key hash belongs to for a short time, so that a busy client costs one key
 * lookup per TTL instead of one per request, and concurrent requests with a key not yet cached share one lookup.
 * An unknown key is remembered too, for at most `negativeTtlMs` (5 s): a client repeating a wrong key costs one
 * lookup per 5 s, and a key created after it was tried works within them. A deleted key or a changed retention takes
 * effect within the TTL, across every instance. Bounded: the least recently used key goes first (lru-cache).
 */
import { LRUCache } from "lru-cache";
import type { Environment } from "./store/access.js";

type Lookup = () => Promise<Environment | undefined>;

/** What the cache holds for a key that was not found (lru-cache holds no null). */
const notFound = Object.freeze({ notFound: true as const });

/** What the cache holds for a key: its environment, or `notFound`. */
type Known = Environment | typeof notFound;

const environmentOf = (known: Known | undefined): Environment | undefined =>
  known === undefined || known === notFound ? undefined : (known as Environment);

export class KeyCache {
  private readonly cache: LRUCache<string, Known, Lookup> | undefined;

  /** With a TTL of 0 nothing is cached. `now` is the clock in milliseconds (tests pass their own). */
  constructor(
    ttlMs: number,
    maxEntries = 10_000,
    now: () => number = () => performance.now(),
    negativeTtlMs = Math.min(ttlMs, 5_000),
  ) {
    this.cache =
      ttlMs > 0
        ? new LRUCache<string, Known, Lookup>({
            max: maxEntries,
            ttl: ttlMs,
            perf: { now },
            ttlResolution: 0,
            fetchMethod: async (_keyHash, _stale, { context, options }) => {
              const found = await context();
              if (found) return found;
              options.ttl = negativeTtlMs;
              return notFound;
            },
          })
        : undefined;
  }

  /**
   * The cached environment (undefined for a key cached as unknown), at once (no promise: most requests take this
   * path), or what `load` finds (cached either way; concurrent misses of one key share one lookup).
   */
  get(keyHash: string, load: Lookup): Environment | undefined | Promise<Environment | undefined> {
    if (!this.cache) return load();
    const cached = this.cache.get(keyHash);
    if (cached !== undefined) return environmentOf(cached);
    return this.cache.fetch(keyHash, { context: load }).then(environmentOf);
  }
}
