/**
 * The reference store against the contract's model, on each driver: fast-check makes small data sets of two
 * environments (ties on timestamps, nulls, Unicode, LIKE metacharacters, deleted subscribers, the same subscriberId
 * and email in both environments) and queries over them; the store's answer and the model's must be equal as a
 * whole. A failure shrinks to a minimal data set and query. Runs under the one FUZZ_RUNS budget.
 */

import {
  listNotifications,
  listWindow,
  type NotificationListQuery,
  patchSubscriber,
  type SubscriberSearchQuery,
  searchSubscribers,
} from "@novu-query/contract/model";
import type { Notification, Subscriber } from "@novu-query/contract/types";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationTable } from "../../generated/operations.js";
import { insertNotifications, insertSubscribers, insertWorkflows } from "../../server/store/bulk-insert.js";
import type { NotificationRow, SubscriberRow } from "../../server/store/rows.js";
import type { Store } from "../../server/store/store.js";
import { toSubscriber } from "../../server/store/subscribers.js";
import { drivers, emptyStores } from "../support/databases.js";
import { declaredQueries } from "../support/declared-queries.js";
import { fuzzParameters } from "../support/fuzz-budget.js";

const channelTypes = ["in_app", "email", "sms", "chat", "push"] as const;
const severities = ["high", "medium", "low", "none"] as const;
/** A few instants, so that rows tie on them. */
const instants = [
  "2026-09-01T00:00:00.000Z",
  "2026-09-01T00:00:00.001Z",
  "2026-10-15T12:30:00.000Z",
  "2026-11-01T00:00:00.000Z",
];
/** Text with the characters that trip substring search: case, LIKE metacharacters, a backslash, non-ASCII letters. */
const texts = ["ana", "Ana", "ANA.b", "b%c", "d_e", "x\\y", "Ünïcødé", "straße", "ǅemal", "日本", "o'neil", ""];
/**
 * Whether every cased character is one whose case mapping PGlite's C library knows: PGlite folds with tables older than
 * Node's and glibc's (U+A7D0/U+A7D1, CLOSED INSERTION Q, Unicode 14, match each other in JavaScript and on PostgreSQL,
 * not on PGlite: docs/decisions.md D40). Letters up to Armenian are drawn; beyond, only characters without case.
 */
const foldsEverywhere = (text: string) =>
  [...text].every((c) => (c.codePointAt(0) ?? 0) <= 0x058f || (c.toLowerCase() === c && c.toUpperCase() === c));
const textArb = fc
  .oneof(fc.constantFrom(...texts), fc.string({ maxLength: 6 }), fc.string({ unit: "grapheme", maxLength: 4 }))
  .filter(foldsEverywhere);
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 4 });

interface DataSet {
  subscribers: {
    subscriberId: string;
    firstName: string | null;
    lastName: string | null;
    email: string | null;
    phone: string | null;
    deleted: boolean;
    createdAt: string;
    updatedAt: string;
  }[];
  notifications: {
    subscriber: number;
    channels: (typeof channelTypes)[number][];
    severity: (typeof severities)[number] | null;
    template: number | null;
    transactionId: string;
    topicKey: string | null;
    tags: string[];
    createdAt: string;
  }[];
}

/** Data sets of at least `min` subscribers and notifications (the notifications need a subscriber to belong to). */
const dataSetArb = (min = 0): fc.Arbitrary<DataSet> =>
  fc.record({
    subscribers: fc.uniqueArray(
      fc.record({
        subscriberId: fc.constantFrom("u1", "u2", "U1", "u%", "u_3", "ü4", "u5", "u6"),
        firstName: nullable(textArb),
        lastName: nullable(textArb),
        email: nullable(fc.tuple(textArb, fc.constantFrom("@x.io", "@X.io", "@y.de", "")).map(([a, b]) => a + b)),
        phone: nullable(fc.constantFrom("+4930123", "+4930999", "030-12%", "555_01")),
        deleted: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
        createdAt: fc.constantFrom(...instants),
        updatedAt: fc.constantFrom(...instants),
      }),
      // Live subscriberIds are unique in an environment; a deleted one may repeat a live one's.
      { minLength: min, maxLength: 10, selector: (s) => (s.deleted ? JSON.stringify(s) : s.subscriberId) },
    ),
    notifications: fc.array(
      fc.record({
        subscriber: fc.nat(),
        channels: fc.uniqueArray(fc.constantFrom(...channelTypes), { maxLength: 3 }),
        severity: fc.option(fc.constantFrom(...severities), { nil: null }),
        template: fc.option(fc.nat(1), { nil: null }),
        transactionId: fc.constantFrom("t1", "t2", "T1", "t%"),
        topicKey: fc.option(fc.constantFrom("news", "News", "ops"), { nil: null }),
        tags: fc.uniqueArray(fc.constantFrom("billing", "Billing", "security"), { maxLength: 2 }),
        createdAt: fc.constantFrom(...instants),
      }),
      { minLength: min, maxLength: 14 },
    ),
  });

let idCounter = 0;
/** A fresh ObjectId-shaped id (24 hexadecimal characters), in creation order. */
function newId(): string {
  idCounter += 1;
  return `6b${process.pid.toString(16).padStart(6, "0")}${idCounter.toString(16).padStart(16, "0")}`;
}

interface Environment {
  id: string;
  subscribers: Subscriber[];
  notifications: Notification[];
}

/** Writes a data set into a new environment and returns its rows as the API shows them. */
async function writeEnvironment(store: Store, data: DataSet, name: string): Promise<Environment> {
  const environment = await store.access.ensureEnvironment(`${name}-${newId()}`);
  const { environmentId, organizationId } = environment;
  const workflows = [0, 1].map(() => newId());
  await insertWorkflows(
    store.db,
    workflows.map((id, i) => ({
      id,
      environment_id: environmentId,
      name: `Workflow ${i}`,
      identifier: `workflow-${i}`,
      origin: "novu-cloud",
      steps: ["email"],
      severity: null,
      tags: [],
      variables: [],
    })),
  );
  const subscriberRows: SubscriberRow[] = data.subscribers.map((s) => ({
    id: newId(),
    environment_id: environmentId,
    organization_id: organizationId,
    subscriber_id: s.subscriberId,
    first_name: s.firstName,
    last_name: s.lastName,
    email: s.email,
    phone: s.phone,
    avatar: null,
    locale: null,
    timezone: null,
    channels: [],
    topics: [],
    is_online: null,
    last_online_at: null,
    version: 0,
    data: null,
    deleted: s.deleted,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  }));
  await insertSubscribers(store.db, subscriberRows);
  const notificationRows: NotificationRow[] =
    subscriberRows.length === 0
      ? []
      : data.notifications.map((n) => ({
          id: newId(),
          environment_id: environmentId,
          organization_id: organizationId,
          subscriber_id: (subscriberRows[n.subscriber % subscriberRows.length] as SubscriberRow).id,
          transaction_id: n.transactionId,
          template_id: n.template === null ? (null as unknown as string) : (workflows[n.template] as string),
          digested_notification_id: null,
          channels: n.channels,
          severity: n.severity,
          topic_keys: n.topicKey === null ? [] : [n.topicKey],
          created_at: n.createdAt,
          updated_at: n.createdAt,
          details: {
            jobs: [],
            tags: n.tags,
            ...(n.topicKey !== null && { topics: [{ _topicId: newId(), topicKey: n.topicKey }] }),
          },
        }));
  await insertNotifications(store.db, notificationRows);
  const notifications: Notification[] = [];
  for (const row of notificationRows) {
    const shown = await store.notifications.get(environmentId, row.id);
    expect(shown, `notification ${row.id} as stored`).toBeDefined();
    notifications.push(shown as Notification);
  }
  return {
    id: environmentId,
    subscribers: subscriberRows.map((row) =>
      toSubscriber({
        ...row,
        last_online_at: null,
        created_at: new Date(row.created_at),
        updated_at: new Date(row.updated_at),
      }),
    ),
    notifications,
  };
}

/** Queries drawn from the declarations over both environments' data (declared-queries.ts), as a client sends them. */
const searchQueryArb = (mine: Environment, theirs: Environment) =>
  declaredQueries("searchSubscribers", [mine, theirs]) as fc.Arbitrary<SubscriberSearchQuery>;
const listQueryArb = (mine: Environment, theirs: Environment) =>
  declaredQueries("listNotifications", [mine, theirs]) as fc.Arbitrary<NotificationListQuery>;

/** How many compared answers had rows: a property whose queries all answer empty pages would prove nothing. */
class Tally {
  private compared = 0;
  private withRows = 0;
  count(rows: number): void {
    this.compared += 1;
    if (rows > 0) this.withRows += 1;
  }
  expectMostlyRows(): void {
    expect(this.compared).toBeGreaterThan(0);
    expect(this.withRows / this.compared, `${this.withRows} of ${this.compared} answers had rows`).toBeGreaterThan(0.2);
  }
}

/**
 * Two environments of one data set each; the first is the one queried, mostly with a few rows: an empty one answers
 * every query with an empty page (a third of the empty answers were so, when it was drawn as often as small ones).
 */
const environmentPair = fc.tuple(
  fc.oneof({ arbitrary: dataSetArb(4), weight: 4 }, { arbitrary: dataSetArb(), weight: 1 }),
  dataSetArb(),
);
/** A value as it reaches a client: through JSON, which has no negative zero (PostgreSQL's numeric has none either). */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

/** A query with the spec's defaults, as the skeleton hands it to the store. */
const withSearchDefaults = (q: SubscriberSearchQuery) => ({ ...operationTable.searchSubscribers.queryDefaults, ...q });
const withListDefaults = (q: NotificationListQuery) => ({ ...operationTable.listNotifications.queryDefaults, ...q });

/**
 * For each pair of generated environments (written into the store, the first the one queried), eight generated
 * queries: `check` compares the store's answer with the model's and returns how many rows it had, or undefined when
 * the model refuses the query.
 */
async function queriesAgainstModel<Query>(
  store: Store,
  queries: (mine: Environment, theirs: Environment) => fc.Arbitrary<Query>,
  check: (mine: Environment, query: Query) => Promise<number | undefined>,
): Promise<void> {
  const tally = new Tally();
  await fc.assert(
    fc.asyncProperty(environmentPair, async ([a, b]) => {
      const mine = await writeEnvironment(store, a, "mine");
      const theirs = await writeEnvironment(store, b, "theirs");
      await fc.assert(
        fc.asyncProperty(queries(mine, theirs), async (query) => {
          const rows = await check(mine, query);
          if (rows !== undefined) tally.count(rows);
        }),
        { numRuns: 8 },
      );
    }),
    fuzzParameters(300, undefined, 15),
  );
  tally.expectMostlyRows();
}

describe.each(drivers)("the store against the model (%s)", (driver) => {
  const stores = emptyStores(driver);
  let store: Store;
  beforeAll(async () => {
    store = await stores.fresh();
    await store.partitions.ensure(new Date("2026-08-01T00:00:00Z"), new Date("2026-12-01T00:00:00Z"));
  });
  afterAll(() => stores.closeAll());

  it("searches subscribers as the model does", async () => {
    await queriesAgainstModel(store, searchQueryArb, async (mine, query) => {
      const expected = searchSubscribers(mine.subscribers, query);
      if (expected.status !== 200) return undefined;
      const received = await store.subscribers.search(mine.id, withSearchDefaults(query));
      expect(received, JSON.stringify(query)).toEqual(expected.body);
      return expected.body.data.length;
    });
  }, 600_000);

  it("lists notifications as the model does", async () => {
    const now = new Date("2026-11-20T00:00:00.000Z");
    await queriesAgainstModel(store, listQueryArb, async (mine, query) => {
      const expected = listNotifications(mine.notifications, mine.subscribers, query, { now });
      const window = listWindow(query, { now });
      if (expected.status !== 200 || "status" in window) return undefined;
      const received = await store.notifications.list(mine.id, { ...withListDefaults(query), ...window });
      expect(received, JSON.stringify(query)).toEqual(expected.body);
      return expected.body.data.length;
    });
  }, 600_000);

  it("patches a subscriber as the model does, in its own environment only", async () => {
    const body = fc.record(
      {
        firstName: nullable(textArb),
        lastName: nullable(textArb),
        email: nullable(fc.constantFrom("a@x.io", "A@x.io")),
        phone: nullable(fc.constantFrom("+4930123", "1")),
        data: nullable(fc.dictionary(fc.constantFrom("a", "b", "ü"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 })),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        environmentPair,
        body,
        fc.constantFrom("u1", "U1", "u%", "ü4", "u5"),
        async ([a, b], patch, id) => {
          const mine = await writeEnvironment(store, a, "mine");
          const theirs = await writeEnvironment(store, b, "theirs");
          const received = await store.subscribers.patch(mine.id, id, patch);
          const expected = patchSubscriber(mine.subscribers, id, patch, new Date(received?.updatedAt ?? 0));
          expect(received === undefined ? 404 : 200).toBe(expected.status);
          // Compared as they go on the wire: JSON has no negative zero, and PostgreSQL's numeric keeps none.
          if (expected.status === 200) expect(wire(received)).toEqual(wire(expected.body));
          const after = await store.subscribers.search(
            theirs.id,
            withSearchDefaults({ limit: 100, orderDirection: "ASC" }),
          );
          const unchanged = searchSubscribers(theirs.subscribers, { limit: 100, orderDirection: "ASC" });
          expect(after).toEqual(unchanged.status === 200 ? unchanged.body : undefined);
        },
      ),
      fuzzParameters(300, undefined, 15),
    );
  }, 600_000);
});
