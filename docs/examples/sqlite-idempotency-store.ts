/**
 * An IdempotencyStore on a synchronous SQLite driver (Node's `node:sqlite`, or better-sqlite3: both fit `Sqlite`
 * below), as docs/backend.md explains. The PATCH and its stored answer must commit together, so a session is a
 * transaction; a synchronous driver runs one transaction per connection, and a handler awaits between statements,
 * so another request's statements would land inside it. Each session therefore opens a connection of its own to the
 * same file (WAL mode lets the others read meanwhile) and hands it to the handler as `transaction`.
 *
 * The trap of a synchronous driver: a second session's `BEGIN IMMEDIATE` waiting for SQLite's write lock blocks the
 * whole thread (busy_timeout is a busy wait), so the first session, which holds the lock and awaits its handler, can
 * never finish: both fail after the timeout. So the sessions of one process take the write lock one at a time, in an
 * async queue, and only then begin; a request whose key another request of this process holds is answered 409 at
 * once, without waiting its turn. Across processes, the write lock and the stored row decide.
 */
import type { IdempotencySession, IdempotencyStore, StoredAnswer } from "@novu-query/express";

/** What the store needs of a synchronous SQLite connection. */
export interface Sqlite {
  exec(sql: string): void;
  prepare(sql: string): {
    run(...values: unknown[]): unknown;
    get(...values: unknown[]): unknown;
  };
  close(): void;
}

export class SqliteIdempotencyStore implements IdempotencyStore<Sqlite> {
  private readonly held = new Set<string>();
  /** The end of the queue for the write lock: each session waits for the one before it. */
  private turn: Promise<void> = Promise.resolve();
  private readonly open: () => Sqlite;

  /** `open` makes a new connection to the service's database file. */
  constructor(open: () => Sqlite) {
    this.open = open;
    const db = open();
    db.exec(`PRAGMA journal_mode = WAL;
      CREATE TABLE IF NOT EXISTS idempotency_records (
        scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
        status_code INTEGER NOT NULL, body TEXT NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key))`);
    db.close();
  }

  async session<T>(scope: string, key: string, work: (session: IdempotencySession<Sqlite>) => Promise<T>) {
    const slot = `${scope}\u0000${key}`;
    if (this.held.has(slot)) return work(this.heldElsewhere());
    this.held.add(slot);
    const previous = this.turn;
    let done!: () => void;
    this.turn = new Promise((resolve) => {
      done = resolve;
    });
    await previous;
    const db = this.open();
    try {
      db.exec("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE");
      const result = await work(this.inTransaction(db, scope, key));
      db.exec("COMMIT");
      return result;
    } catch (error) {
      rollback(db);
      throw error;
    } finally {
      db.close();
      this.held.delete(slot);
      done();
    }
  }

  /** A session for a key another request of this process holds: answered 409 by the pipeline. */
  private heldElsewhere(): IdempotencySession<Sqlite> {
    return {
      transaction: undefined as unknown as Sqlite,
      claim: async () => false,
      find: async () => undefined,
      save: async () => {},
    };
  }

  /** The session of a request that holds its key, in the transaction on `db`. */
  private inTransaction(db: Sqlite, scope: string, key: string): IdempotencySession<Sqlite> {
    return {
      transaction: db,
      claim: async () => true,
      find: async () => {
        const row = db
          .prepare(
            "SELECT fingerprint, status_code AS statusCode, body FROM idempotency_records WHERE scope = ? AND key = ? AND expires_at > ?",
          )
          .get(scope, key, Date.now()) as StoredAnswer | undefined;
        return row ? { fingerprint: row.fingerprint, statusCode: row.statusCode, body: row.body } : undefined;
      },
      save: async (answer, ttlSeconds) => {
        db.prepare("INSERT OR REPLACE INTO idempotency_records VALUES (?, ?, ?, ?, ?, ?)").run(
          scope,
          key,
          answer.fingerprint,
          answer.statusCode,
          answer.body,
          Date.now() + ttlSeconds * 1000,
        );
      },
    };
  }
}

/** Rolls back the transaction, if BEGIN got as far as opening one. */
function rollback(db: Sqlite): void {
  try {
    db.exec("ROLLBACK");
  } catch {
    // BEGIN failed (the write lock not had within the busy timeout): there is nothing to roll back.
  }
}
