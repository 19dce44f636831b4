/**
 * The skeleton's idempotency store on this server's database: one transaction per session holds the key's advisory
 * lock, reads and saves the answer, and is the transaction the PATCH itself runs in, so a change is never applied
 * without its record or the reverse (the skeleton's IdempotencyStore contract).
 */
import type { IdempotencySession, IdempotencyStore } from "@novu-query/express";
import type { Store } from "./store/store.js";

export class DatabaseIdempotencyStore implements IdempotencyStore<Store> {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  session<T>(environmentId: string, key: string, work: (session: IdempotencySession<Store>) => Promise<T>): Promise<T> {
    return this.store.transaction((tx) =>
      work({
        transaction: tx,
        claim: () => tx.idempotency.tryLock(environmentId, key),
        find: () => tx.idempotency.find(environmentId, key),
        save: (answer, ttlSeconds) => tx.idempotency.save(environmentId, key, answer, ttlSeconds),
      }),
    );
  }
}
