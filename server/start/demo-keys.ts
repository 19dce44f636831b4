/**
 * The public demo keys at start: refused in production unless ALLOW_DEMO_KEYS says this is a public demo, and
 * otherwise announced (they open the demo environments, with a subscriber to try a PATCH on).
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { publicDemoKeys } from "../demo/options.js";
import type { Store } from "../store/store.js";

/** Why a start was refused, in words for the operator (the command prints the message alone). */
export class StartRefused extends Error {
  override name = "StartRefused";
}

/**
 * In production, the public demo keys (derivable by anyone from this repository) must not open the store: the start
 * is refused unless ALLOW_DEMO_KEYS says this is a public demo; with it, a loud warning.
 */
export async function refusePublicDemoKeys(store: Store, config: Config, logger: Logger): Promise<void> {
  if (!config.production) return;
  const present: string[] = [];
  for (const { name, key } of publicDemoKeys()) {
    if (await store.access.environmentForKey(key)) present.push(name);
  }
  if (present.length === 0) return;
  if (config.allowDemoKeys) {
    logger.warn(
      { environments: present },
      "NODE_ENV=production with the public demo keys: anyone can read and change these environments (ALLOW_DEMO_KEYS=true)",
    );
    return;
  }
  throw new StartRefused(
    `Refusing to start with NODE_ENV=production: the database holds the public demo API keys of ${present.join(" and ")}, ` +
      "which anyone can derive from the source. Remove them with `novu-query-server keys revoke-demo` (then create " +
      "your own with `keys create`), or set ALLOW_DEMO_KEYS=true if this is a public demo.",
  );
}

export interface DemoKeys {
  /** Environment name -> its public key, for the environments the store has. */
  keys: Record<string, string>;
  /** A subscriber of the first of them, for the banner's PATCH example. */
  exampleSubscriberId: string | undefined;
}

/** The public demo keys the store holds. */
export async function demoKeysIn(store: Store, seed: number): Promise<DemoKeys> {
  const keys: Record<string, string> = {};
  let exampleSubscriberId: string | undefined;
  for (const { name, key } of publicDemoKeys(seed)) {
    const environment = await store.access.environmentForKey(key);
    if (!environment) continue;
    keys[name] = key;
    if (exampleSubscriberId === undefined) {
      const search = { limit: 1, orderBy: "_id", orderDirection: "ASC", includeCursor: false } as const;
      exampleSubscriberId = (await store.subscribers.search(environment.environmentId, search)).data[0]?.subscriberId;
    }
  }
  return { keys, exampleSubscriberId };
}
