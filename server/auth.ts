/**
 * The reference server's API keys: a key belongs to one environment (looked up by its SHA-256 hash, remembered for
 * API_KEY_CACHE_SECONDS), and every query of the request is scoped to it. The skeleton answers the 401s.
 */
import type { Authenticate } from "@novu-query/express";
import type { KeyCache } from "./key-cache.js";
import type { Environment } from "./store/access.js";
import type { Store } from "./store/store.js";

declare module "@novu-query/express" {
  interface AuthContext extends Environment {
    /** The retention that applies: the environment's own, else the server default; null is unlimited. */
    effectiveRetentionDays: number | null;
  }
}

/** The environment of a key, with the retention that applies to it. */
export function environmentKeys(store: Store, defaultRetentionDays: number | undefined, cache: KeyCache): Authenticate {
  return async ({ keyHash }) => {
    const environment = await cache.get(keyHash, () => store.access.environmentForKeyHash(keyHash));
    return (
      environment && {
        ...environment,
        effectiveRetentionDays: environment.retentionDays ?? defaultRetentionDays ?? null,
      }
    );
  };
}
