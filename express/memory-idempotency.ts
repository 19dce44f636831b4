/**
 * Idempotent answers kept in this process: right for one instance, for development and for tests. Several instances
 * behind a load balancer need a store they share (the reference server keeps its answers in PostgreSQL, in the same
 * transaction as the change). Bounded: past `maxEntries` the oldest answer goes first; expired answers go as they are met.
 */
import type { IdempotencySession, IdempotencyStore, StoredAnswer } from "./idempotency.js";

interface Kept {
  answer: StoredAnswer;
  expiresAt: number;
}

export class MemoryIdempotencyStore implements IdempotencyStore<undefined> {
  private readonly answers = new Map<string, Kept>();
  private readonly held = new Set<string>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  /** `now` is the clock in milliseconds (tests pass their own). */
  constructor({ maxEntries = 100_000, now = Date.now }: { maxEntries?: number; now?: () => number } = {}) {
    this.maxEntries = maxEntries;
    this.now = now;
  }

  async session<T>(scope: string, key: string, work: (session: IdempotencySession<undefined>) => Promise<T>) {
    const id = `${scope}\u0000${key}`;
    let claimed = false;
    let saved: Kept | undefined;
    const session: IdempotencySession<undefined> = {
      transaction: undefined,
      claim: async () => {
        if (this.held.has(id)) return false;
        this.held.add(id);
        claimed = true;
        return true;
      },
      find: async () => {
        const kept = this.answers.get(id);
        if (kept && kept.expiresAt <= this.now()) this.answers.delete(id);
        else if (kept) return kept.answer;
        return undefined;
      },
      save: async (answer, ttlSeconds) => {
        saved = { answer, expiresAt: this.now() + ttlSeconds * 1000 };
      },
    };
    try {
      const result: T = await work(session);
      // Kept only when the work went through, as a transaction would commit it.
      if (saved) this.keep(id, saved);
      return result;
    } finally {
      if (claimed) this.held.delete(id);
    }
  }

  private keep(id: string, kept: Kept): void {
    this.answers.delete(id);
    this.answers.set(id, kept);
    while (this.answers.size > this.maxEntries) this.answers.delete(this.answers.keys().next().value as string);
  }
}
