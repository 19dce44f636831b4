/**
 * What decides the demo data (seed, sizes, the instant it ends at) and its fixed API keys. Kept apart from the
 * generator, which loads faker: a server that starts from a snapshot of the demo data never needs it.
 */
import { createHash } from "node:crypto";

export interface DemoOptions {
  seed: number;
  subscribers: number;
  notifications: number;
  /** The newest record is created just before this instant. */
  anchor: Date;
  /** How the rows are shared between environments; the default is 80% Production, 20% Development. */
  environmentShares?: { name: string; share: number }[];
}

export const defaultDemoOptions: DemoOptions = {
  seed: 20261121,
  subscribers: 1000,
  notifications: 5000,
  anchor: new Date("2026-11-21T12:00:00.000Z"),
};

export function demoApiKey(seed: number, environment: string): string {
  return createHash("sha256").update(`demo-key:${seed}:${environment}`).digest("hex").slice(0, 32);
}

/** The environments the demo data has, each with its public key. */
export const demoEnvironmentNames = ["Production", "Development"] as const;

/**
 * The demo keys anyone can derive from this repository: a store that holds one lets the world read that environment.
 * Fine for a demo; never in production (server/main.ts refuses to start, `keys revoke-demo` removes them).
 */
export function publicDemoKeys(seed: number = defaultDemoOptions.seed): { name: string; key: string }[] {
  return demoEnvironmentNames.map((name) => ({ name, key: demoApiKey(seed, name) }));
}
