import type { Kysely } from "kysely";
import { AccessStore } from "./access.js";
import { type ConnectOptions, connect, type DriverName } from "./connect.js";
import { IdempotencyRecordStore } from "./idempotency-records.js";
import { migrate } from "./migrate.js";
import { NotificationStore } from "./notifications.js";
import type { Database } from "./schema.js";
import { SubscriberStore } from "./subscribers.js";

export interface StoreOptions extends ConnectOptions {
  /** Above this many matches, subscriber search reports this number with `totalCountCapped: true`. */
  totalCountCap: number;
}

/** Every query the service makes, over one database connection or one transaction. */
export class Store {
  readonly access: AccessStore;
  readonly subscribers: SubscriberStore;
  readonly notifications: NotificationStore;
  readonly idempotency: IdempotencyRecordStore;

  constructor(
    readonly db: Kysely<Database>,
    private readonly options: { totalCountCap: number; rareTermLimit?: number },
  ) {
    this.access = new AccessStore(db);
    this.subscribers = new SubscriberStore(db, options.totalCountCap);
    this.notifications = new NotificationStore(db, options.rareTermLimit);
    this.idempotency = new IdempotencyRecordStore(db);
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
  const { db, driver, location } = await connect(options);
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    store: new Store(db, { totalCountCap: options.totalCountCap }),
    driver,
    location,
    close: () => db.destroy(),
  };
}
