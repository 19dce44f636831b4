/**
 * The reference server's API keys: a key belongs to one environment (looked up by its SHA-256 hash, remembered for
 * API_KEY_CACHE_SECONDS), and every query of the request is scoped to it. The skeleton answers the 401s.
 */
import type { AuthContext, Authenticate } from "@novu-query/express";
import type { KeyCache } from "./key-cache.js";
import type { Environment } from "./store/access.js";
import type { Store } from "./store/store.js";

declare module "@novu-query/express" {
  interface AuthContext extends Environment {
    /** The retention that applies: the environment's own, else the server default; null is unlimited. */
    effectiveRetentionDays: number | null;
  }
}

/** The environment of a key, with the retention that applies to it; at once when the key is cached. */
export function environmentKeys(store: Store, defaultRetentionDays: number | undefined, cache: KeyCache): Authenticate {
  // One context per cached environment object, not one per request.
  const contexts = new WeakMap<Environment, AuthContext>();
  const contextOf = (environment: Environment | undefined): AuthContext | undefined => {
    if (!environment) return undefined;
    let context = contexts.get(environment);
    if (!context) {
      context = { ...environment, effectiveRetentionDays: environment.retentionDays ?? defaultRetentionDays ?? null };
      contexts.set(environment, context);
    }
    return context;
  };
  return ({ keyHash }) => {
    const found = cache.get(keyHash, () => store.access.environmentForKeyHash(keyHash));
    return found instanceof Promise ? found.then(contextOf) : contextOf(found);
  };
}
