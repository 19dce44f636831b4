import { readSubscriberCursor, subscriberCursorOf } from "@novu-query/contract/model";
import type { ChannelSettings, PatchSubscriberRequest, Subscriber } from "@novu-query/contract/types";
import type { StoredAnswer } from "@novu-query/express";
import { type Kysely, sql } from "kysely";
import { prepared } from "./prepared-statements.js";
import { ReusableStatement } from "./reusable-statement.js";
import type { Database, SubscribersTable } from "./schema.js";
import { liveOnly, toIso } from "./sql-helpers.js";
import { type AnswerRow, answerColumns } from "./subscriber-columns.js";
import {
  carriesPlace,
  type SearchPlan,
  type SubscriberCounts,
  type SubscriberSearch,
  SubscriberSearchQueries,
} from "./subscriber-search.js";
import type { SubstringFilter } from "./substring-filter.js";

export type { SubscriberOrderBy, SubscriberSearch } from "./subscriber-search.js";

export interface SubscriberPage extends SubscriberCounts {
  data: Subscriber[];
  next: string | null;
  previous: string | null;
}

export type SubscriberChanges = PatchSubscriberRequest;

const changeColumns = {
  firstName: "first_name",
  lastName: "last_name",
  email: "email",
  phone: "phone",
  avatar: "avatar",
  locale: "locale",
  timezone: "timezone",
  data: "data",
} as const satisfies Record<keyof SubscriberChanges, keyof SubscribersTable>;

type Row = AnswerRow;

/**
 * A subscriber's answer from its answer columns as `to_jsonb` has them (kept with an idempotent answer, migration
 * 013): the same values as a row read back, its times as ISO text, so the same answer as `toSubscriber` of that row.
 */
export function subscriberOfColumnsJson(columns: unknown): Subscriber {
  return toSubscriber(columns as Row);
}

/** What the PATCH at once found and did (migration 013's `outcome`). */
export type PatchAtOnce =
  | { outcome: "held" }
  | { outcome: "stored"; stored: StoredAnswer }
  | { outcome: "patched"; subscriber: Subscriber }
  | { outcome: "absent" };

/** What the call of migration 013's function answers. */
interface AtOnceRow {
  outcome: PatchAtOnce["outcome"];
  fingerprint: string | null;
  status_code: number | null;
  body: string | null;
  subscriber: unknown;
}

/** The PATCH's text fields in the order migration 013's function takes them. */
const textFields = ["firstName", "lastName", "email", "phone", "avatar", "locale", "timezone"] as const;
type TextField = (typeof textFields)[number];

type AtOnceValues = {
  environmentId: string;
  subscriberId: string;
  key: string;
  fingerprint: string;
  ttlSeconds: number;
  fields: string;
  data: string | null;
} & Record<TextField, string | null>;

/** The call of migration 013's function: one text for every PATCH, built once (D69). */
const patchAtOnceCall = new ReusableStatement(
  "PATCH at once",
  () => "",
  (_db: Kysely<Database>, _shape, v: AtOnceValues) =>
    sql<AtOnceRow>`SELECT outcome, fingerprint, status_code, body, subscriber FROM patch_subscriber_at_once(${v.environmentId}, ${v.subscriberId}, ${v.key}, ${v.fingerprint}, ${v.ttlSeconds}, string_to_array(${v.fields}, ','), ${sql.join(textFields.map((field) => v[field]))}, ${v.data}::jsonb) ${prepared}`,
);

/** The PATCH's changes as the call of migration 013's function takes them, its fields named in the same order. */
function atOnceArguments(changes: SubscriberChanges): Pick<AtOnceValues, "fields" | "data" | TextField> {
  const fields: string[] = [];
  for (const field of Object.keys(changeColumns) as (keyof SubscriberChanges)[]) {
    if (changes[field] !== undefined) fields.push(field);
  }
  const texts = Object.fromEntries(textFields.map((field) => [field, changes[field] ?? null])) as Record<
    TextField,
    string | null
  >;
  return {
    fields: fields.join(","),
    ...texts,
    data: changes.data === undefined || changes.data === null ? null : JSON.stringify(changes.data),
  };
}

export function toSubscriber(row: Row): Subscriber {
  return {
    _id: row.id,
    subscriberId: row.subscriber_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    avatar: row.avatar,
    locale: row.locale,
    timezone: row.timezone,
    channels: row.channels as ChannelSettings[],
    topics: row.topics,
    isOnline: row.is_online,
    lastOnlineAt: row.last_online_at ? toIso(row.last_online_at) : null,
    __v: row.version,
    data: row.data,
    _organizationId: row.organization_id,
    _environmentId: row.environment_id,
    deleted: row.deleted,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export class SubscriberStore {
  private readonly db: Kysely<Database>;
  private readonly searches: SubscriberSearchQueries;

  /** `reads` serves search (a read replica when there is one); `db` (the primary) serves patch and its reads. */
  constructor(db: Kysely<Database>, totalCountCap: number, reads: Kysely<Database>, substring: SubstringFilter) {
    this.db = db;
    this.searches = new SubscriberSearchQueries(reads, totalCountCap, substring);
  }

  /**
   * One page of a cursor walk in (orderBy, _id) order, with the filters' total count (capped). The count does not
   * depend on the page: it runs beside the walk, on another connection of the pool; a common substring term's runs
   * first, to choose how the page is read (`countThenWalk`).
   */
  async search(environmentId: string, query: SubscriberSearch): Promise<SubscriberPage> {
    const plan = await this.searches.plan(environmentId, query);
    if (plan.unfiltered) {
      // The page brings the kept count along (one round trip); an empty page cannot, so it is read then.
      const { live, matched: _, ...walk } = await this.walk(plan, query);
      return { ...walk, ...(live === undefined ? await this.searches.count(plan, query) : this.searches.capped(live)) };
    }
    if (await this.searches.mayBeDense(query)) return this.countThenWalk(plan, query);
    if (plan.readsEveryMatch && !this.searches.countIsKept(query)) {
      // The page reads every match anyway: it counts them too, in the same statement (D76).
      const { live: _, matched, ...walk } = await this.walk(plan, query, true);
      return {
        ...walk,
        ...(matched === undefined ? await this.searches.count(plan, query) : this.searches.capped(matched)),
      };
    }
    const [{ live: _, matched: __, ...walk }, counts] = await Promise.all([
      this.walk(plan, query),
      this.searches.count(plan, query),
    ]);
    return { ...walk, ...counts };
  }

  /**
   * A search whose matches may be dense (a common substring term): counted first, and when the count shows them dense,
   * its page read in the order's index, which reaches a page of them in a few hundred entries, where the grams read
   * every match; past the walk's bound it is read through the grams after all (D58).
   */
  private async countThenWalk(plan: SearchPlan, query: SubscriberSearch): Promise<SubscriberPage> {
    const [counts, live] = await Promise.all([
      this.searches.count(plan, query),
      this.searches.liveSubscribers(plan.environmentId),
    ]);
    const visit = this.searches.walkBound(plan, counts.totalCount, live, query.limit);
    const bounded =
      visit === undefined
        ? undefined
        : await this.tryWalk(await this.searches.plan(plan.environmentId, query, visit), query);
    const { live: _, matched: __, ...walk } = bounded ?? (await this.walk(plan, query));
    return { ...walk, ...counts };
  }

  /**
   * The page a cursor walk reaches, with its neighbours: `next` and `previous` when matching rows lie beyond it.
   * `counted`: the page's statement counts every match too (`matched`, D76).
   */
  private async walk(plan: SearchPlan, query: SubscriberSearch, counted = false) {
    const walked = await this.tryWalk(plan, query, counted);
    if (!walked) throw new Error("a walk with no bound reaches its page");
    return walked;
  }

  /** `walk`, or undefined when a bounded walk (D58) could not tell the page or a neighbour within its bound. */
  private async tryWalk(plan: SearchPlan, query: SubscriberSearch, counted = false) {
    const sent = query.after ?? query.before;
    // The pipeline refused a cursor the model cannot read (its time no real instant).
    const read = sent === undefined ? undefined : readSubscriberCursor(sent);
    const cursor = read && (await this.searches.cursorKey(plan, read));
    if (sent !== undefined && !cursor)
      return { data: [], next: null, previous: null, live: undefined, matched: undefined };
    const page = await this.searches.page(plan, query, cursor, counted);
    if (!page) return undefined;
    const { items, more, live, matched } = page;
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return { data: [], next: null, previous: null, live, matched };
    // The look-ahead row answers for the side the page was read towards; the other side needs a query, unless the
    // cursor's own row answers it: read live (not a place carried in an `updatedAt` order), matching the filters when
    // there are none, and left off the page, it lies just past the page on the side the page was read from.
    const cursorRowOutside = plan.unfiltered && !query.includeCursor && read !== undefined && !carriesPlace(plan, read);
    const rowsFollow = plan.forward
      ? more
      : cursorRowOutside || (await this.searches.exists(plan, plan.keyOf(last), true));
    const rowsPrecede = plan.forward
      ? cursor !== undefined && (cursorRowOutside || (await this.searches.exists(plan, plan.keyOf(first), false)))
      : more;
    if (rowsFollow === undefined || rowsPrecede === undefined) return undefined;
    const data = items.map(toSubscriber);
    return {
      data,
      next: rowsFollow ? subscriberCursorOf(data.at(-1) as Subscriber, query.orderBy) : null,
      previous: rowsPrecede ? subscriberCursorOf(data[0] as Subscriber, query.orderBy) : null,
      live,
      matched,
    };
  }

  async findBySubscriberId(environmentId: string, subscriberId: string): Promise<Subscriber | undefined> {
    const row = await this.db
      .selectFrom("subscribers")
      .select(answerColumns)
      .where("environment_id", "=", environmentId)
      .where("subscriber_id", "=", subscriberId)
      .where("deleted", "=", liveOnly)
      .modifyEnd(prepared)
      .executeTakeFirst();
    return row && toSubscriber(row);
  }

  /**
   * Applies the changes in one atomic UPDATE that also bumps `__v`, so concurrent patches never lose an update.
   * A patch that changes nothing writes nothing. Returns undefined when there is no such subscriber.
   */
  async patch(
    environmentId: string,
    subscriberId: string,
    changes: SubscriberChanges,
  ): Promise<Subscriber | undefined> {
    const entries = Object.entries(changes).filter(([, value]) => value !== undefined) as [
      keyof SubscriberChanges,
      unknown,
    ][];
    if (entries.length > 0) {
      const values: Record<string, unknown> = {};
      for (const [field, value] of entries) {
        values[changeColumns[field]] = field === "data" && value !== null ? JSON.stringify(value) : value;
      }
      // One statement: the subscriber's UPDATE (a HOT update when no indexed column changes) and its order row's
      // (migration 010), which the `updatedAt` walks read. Written here rather than by a trigger: on Citus a row
      // trigger's statement goes through the distributed executor from the shard, which cost more than the HOT update
      // saved (bench/DATA-PATCH.md).
      const updated = await this.db
        .with("patched", (db) =>
          db
            .updateTable("subscribers")
            .set(values)
            .set((eb) => ({
              version: eb("version", "+", 1),
              // The statement's time, never before the time it replaces: a PATCH that waited for another one's row
              // lock started before that one wrote. (Not clock_timestamp(): Citus runs no volatile function in an
              // UPDATE.)
              updated_at: sql<Date>`greatest(date_trunc('milliseconds', statement_timestamp()), updated_at)`,
            }))
            .where("environment_id", "=", environmentId)
            .where("subscriber_id", "=", subscriberId)
            .where("deleted", "=", liveOnly)
            .where((eb) =>
              eb.or(
                entries.map(([field]) => {
                  const column = changeColumns[field];
                  const value = values[column];
                  const target = field === "data" && value !== null ? sql`${value}::jsonb` : sql`${value}`;
                  return eb(sql.ref(column), "is distinct from", field === "data" ? target : (value as never));
                }),
              ),
            )
            .returning(answerColumns),
        )
        .with("ordered", (db) =>
          db
            .updateTable("subscriber_update_order")
            .from("patched")
            .set((eb) => ({ updated_at: eb.ref("patched.updated_at") }))
            .where("subscriber_update_order.environment_id", "=", environmentId)
            .whereRef("subscriber_update_order.id", "=", "patched.id")
            .returning("subscriber_update_order.id"),
        )
        .selectFrom("patched")
        .selectAll()
        .modifyEnd(prepared)
        .executeTakeFirst();
      if (updated) return toSubscriber(updated);
    }
    return this.findBySubscriberId(environmentId, subscriberId);
  }

  /**
   * The PATCH with an Idempotency-Key in one round trip (migration 013, D68): the key's lock, its stored answer, the
   * same UPDATE as `patch` and the answer stored for the key, in one call that is its own transaction. Runs the PATCH
   * only when the key is free and nothing is stored for it; "absent" (no such subscriber) writes and stores nothing.
   */
  async patchAtOnce(
    environmentId: string,
    subscriberId: string,
    changes: SubscriberChanges,
    request: { key: string; fingerprint: string; ttlSeconds: number },
  ): Promise<PatchAtOnce> {
    const rows = await patchAtOnceCall.execute(this.db, "", {
      environmentId,
      subscriberId,
      key: request.key,
      fingerprint: request.fingerprint,
      ttlSeconds: request.ttlSeconds,
      ...atOnceArguments(changes),
    });
    const row = rows[0];
    switch (row?.outcome) {
      case "held":
      case "absent":
        return { outcome: row.outcome };
      case "patched":
        return { outcome: "patched", subscriber: subscriberOfColumnsJson(row.subscriber) };
      case "stored": {
        const stored = storedAnswerOf(row);
        if (stored) return { outcome: "stored", stored };
      }
    }
    throw new Error(`patch_subscriber_at_once answered ${JSON.stringify(row)}`);
  }
}

/**
 * An answer stored for an idempotency key, in either form (migration 013): its text, or its subscriber's answer
 * columns, whose answer is built the one way a subscriber's is (`toSubscriber`) and sent as `res.json` sends it.
 */
export function storedAnswerOf(row: {
  fingerprint: string | null;
  status_code: number | null;
  body: string | null;
  subscriber: unknown;
}): StoredAnswer | undefined {
  const { fingerprint, status_code: statusCode, body, subscriber } = row;
  if (fingerprint === null || statusCode === null) return undefined;
  if (body !== null) return { fingerprint, statusCode, body };
  if (subscriber === null || subscriber === undefined) return undefined;
  return { fingerprint, statusCode, body: JSON.stringify(subscriberOfColumnsJson(subscriber)) };
}
