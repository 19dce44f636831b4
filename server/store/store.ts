import type { Kysely } from "kysely";
import { AccessStore } from "./access.js";
import { type ConnectOptions, connect, type DriverName } from "./connect.js";
import { IdempotencyRecordStore } from "./idempotency-records.js";
import { migrate } from "./migrate.js";
import { NotificationStore } from "./notifications.js";
import { NotificationPartitions } from "./partitions.js";
import { RateLimitBuckets } from "./rate-limits.js";
import type { Database } from "./schema.js";
import { analyzeIfNeverAnalyzed } from "./statistics.js";
import { SubscriberStore } from "./subscribers.js";
import { SubstringFilter, type SubstringShares } from "./substring-filter.js";

export interface StoreOptions extends ConnectOptions {
  /** Above this many matches, subscriber search reports this number with `totalCountCapped: true`. */
  totalCountCap: number;
}

/** What the store's plan choices go by; tests move the thresholds to force one way or the other. */
export interface StoreTuning {
  totalCountCap: number;
  /** See notifications.ts: a term filter matching at most this many notifications collects its matches. */
  rareTermLimit?: number;
  /** See substring-filter.ts: a term whose rarest 3-gram is in this share of rows is searched without the grams. */
  substringCommonShare?: SubstringShares;
  /**
   * See notifications.ts: the unfiltered list's first pages read their rows in the walk of the newest-first index
   * (default) or their ids first (PGlite, whose small tables the generic plan sorts: D71).
   */
  firstPagesInOneWalk?: boolean;
}

/** Every query the service makes, over one database connection or one transaction. */
export class Store {
  readonly access: AccessStore;
  readonly subscribers: SubscriberStore;
  readonly notifications: NotificationStore;
  readonly idempotency: IdempotencyRecordStore;
  readonly partitions: NotificationPartitions;
  readonly rateLimitBuckets: RateLimitBuckets;

  readonly db: Kysely<Database>;
  private readonly options: StoreTuning;
  readonly readDb: Kysely<Database>;

  /**
   * `db` is the primary; `readDb` serves the queries that only read (search, list, get, key lookups) and is the
   * primary too unless a read replica is configured. Writes, and reads inside a transaction, always use the primary.
   */
  constructor(db: Kysely<Database>, options: StoreTuning, readDb: Kysely<Database> = db) {
    this.db = db;
    this.options = options;
    this.readDb = readDb;
    this.access = new AccessStore(db, readDb);
    const substring = new SubstringFilter(readDb, options.substringCommonShare);
    this.subscribers = new SubscriberStore(db, options.totalCountCap, readDb, substring);
    this.notifications = new NotificationStore(readDb, options.rareTermLimit, substring, options.firstPagesInOneWalk);
    this.idempotency = new IdempotencyRecordStore(db);
    this.partitions = new NotificationPartitions(db);
    this.rateLimitBuckets = new RateLimitBuckets(db);
  }

  /** True when the store holds no environment yet (a fresh database). */
  async isEmpty(): Promise<boolean> {
    const row = await this.db.selectFrom("environments").select("id").limit(1).executeTakeFirst();
    return row === undefined;
  }

  /** Fails unless the primary (and the read replica, when there is one) answers a query: the health check. */
  async ping(): Promise<void> {
    await this.db.selectFrom("environments").select("id").limit(1).execute();
    if (this.readDb !== this.db) await this.readDb.selectFrom("environments").select("id").limit(1).execute();
  }

  /** Runs the work in one transaction, with a Store bound to it; commits when it returns, rolls back when it throws. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new Store(trx, this.options)));
  }
}

export interface OpenedStore {
  store: Store;
  driver: DriverName;
  location: string;
  close(): Promise<void>;
}

/** Connects to the database the options name, applies pending migrations, and returns the store. */
export async function openStore(options: StoreOptions): Promise<OpenedStore> {
  const { db, readDb, driver, location } = await connect(options);
  const close = async () => {
    await db.destroy();
    if (readDb) await readDb.destroy();
  };
  try {
    await migrate(db);
    if (driver === "pglite") await analyzeIfNeverAnalyzed(db);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    store: new Store(db, { totalCountCap: options.totalCountCap, firstPagesInOneWalk: driver !== "pglite" }, readDb),
    driver,
    location,
    close,
  };
}
