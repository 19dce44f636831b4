/**
 * The skeleton's idempotency store on this server's database: one transaction per session holds the key's advisory
 * lock, reads and saves the answer, and is the transaction the PATCH itself runs in, so a change is never applied
 * without its record or the reverse (the skeleton's IdempotencyStore contract).
 */
import type { IdempotencySession, IdempotencyStore, StoredAnswer } from "@novu-query/express";
import type { Store } from "./store/store.js";

export interface StorageBound {
  /** Bytes of stored answers an environment keeps; past them its oldest are deleted. */
  maxBytesPerEnvironment: number;
  /** Told how many answers a bound deleted (for the log). */
  onDeleted?: (environmentId: string, deleted: number) => void;
}

/**
 * How often the bound is applied: after this share of it has been saved in an environment by this process, so that a
 * flood of answers is cut back within a twentieth of the bound (per process). Applying it reads every answer the
 * environment keeps, as many as fit in the bound; counted in bytes, that read costs about twenty rows per answer saved
 * whatever their size. (A check every hundred answers as well cost an environment at a 50 MB bound of small answers
 * some 640 rows read per PATCH, measured: bench/ANALYSIS.md.)
 */
const checkEveryShare = 1 / 20;

export class DatabaseIdempotencyStore implements IdempotencyStore<Store> {
  private readonly store: Store;
  private readonly bound: StorageBound | undefined;
  /** Per environment: bytes saved since its bound was last applied. */
  private readonly unchecked = new Map<string, number>();

  constructor(store: Store, bound?: StorageBound) {
    this.store = store;
    this.bound = bound;
  }

  async session<T>(
    environmentId: string,
    key: string,
    work: (session: IdempotencySession<Store>) => Promise<T>,
  ): Promise<T> {
    let saved = 0;
    const result = await this.store.transaction((tx) => {
      // The claim reads the stored answer with the lock, in one round trip: `find` after it returns what it read.
      let claimed: { stored: StoredAnswer | undefined } | undefined;
      return work({
        transaction: tx,
        claim: async () => {
          const claim = await tx.idempotency.claim(environmentId, key);
          claimed = claim.locked ? { stored: claim.stored } : undefined;
          return claim.locked;
        },
        find: async () => (claimed ? claimed.stored : tx.idempotency.find(environmentId, key)),
        save: (answer, ttlSeconds) => {
          saved = Buffer.byteLength(answer.body);
          return tx.idempotency.save(environmentId, key, answer, ttlSeconds);
        },
      });
    });
    // After the commit: the answer is stored whatever the bound then deletes.
    if (saved > 0) await this.applyBound(environmentId, saved);
    return result;
  }

  /** An answer stored by the PATCH at once (D68), outside a session: counted towards the bound as a session's is. */
  async saved(environmentId: string, bytes: number): Promise<void> {
    await this.applyBound(environmentId, bytes);
  }

  private async applyBound(environmentId: string, savedBytes: number): Promise<void> {
    if (!this.bound) return;
    const unchecked = (this.unchecked.get(environmentId) ?? 0) + savedBytes;
    const { maxBytesPerEnvironment, onDeleted } = this.bound;
    if (unchecked < maxBytesPerEnvironment * checkEveryShare) {
      this.unchecked.set(environmentId, unchecked);
      return;
    }
    this.unchecked.delete(environmentId);
    const deleted = await this.store.idempotency.keepNewestWithin(environmentId, maxBytesPerEnvironment);
    if (deleted > 0) onDeleted?.(environmentId, deleted);
  }
}
