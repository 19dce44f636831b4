import type { ChannelSettings, PatchSubscriberRequest, Subscriber } from "@novu-query/contract/types";
import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import { prepared } from "./prepared-statements.js";
import type { Database, SubscribersTable } from "./schema.js";
import { likeContains, toIso } from "./sql-helpers.js";
import type { SearchedColumn, SubstringFilter } from "./substring-filter.js";

export type SubscriberOrderBy = "_id" | "createdAt" | "updatedAt";

export interface SubscriberSearch {
  limit: number;
  orderBy: SubscriberOrderBy;
  orderDirection: "ASC" | "DESC";
  includeCursor: boolean;
  after?: string | undefined;
  before?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
  phone?: string | undefined;
  subscriberId?: string | undefined;
}

export interface SubscriberPage {
  data: Subscriber[];
  next: string | null;
  previous: string | null;
  totalCount: number;
  totalCountCapped: boolean;
}

export type SubscriberChanges = PatchSubscriberRequest;

/** The partial index of subscriber_email_domains holds the domains with at least this many live subscribers. */
const largeDomain = 1000;

const sortColumns = { _id: "id", createdAt: "created_at", updatedAt: "updated_at" } as const;

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

/** The columns an answer shows (not the lowercase copies the filters search). */
const answerColumns = [
  "id",
  "environment_id",
  "organization_id",
  "subscriber_id",
  "first_name",
  "last_name",
  "email",
  "phone",
  "avatar",
  "locale",
  "timezone",
  "channels",
  "topics",
  "is_online",
  "last_online_at",
  "version",
  "data",
  "deleted",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof SubscribersTable)[];

type Row = Pick<Selectable<SubscribersTable>, (typeof answerColumns)[number]>;
type Where = ExpressionBuilder<Database, "subscribers">;

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

/** The longest gram whose live subscribers are kept counted (migration 004). */
const maxKeptGram = 3;

function substringTerms(query: SubscriberSearch): [SearchedColumn, string][] {
  return (["email", "phone", "name"] as const).flatMap((column) => {
    const term = query[column];
    return term === undefined ? [] : [[column, term] as [SearchedColumn, string]];
  });
}

/** The search's only filter, when it is a substring term of one to three characters: its count is kept. */
function loneShortTerm(query: SubscriberSearch): [SearchedColumn, string] | undefined {
  const terms = substringTerms(query);
  const [only] = terms;
  if (terms.length !== 1 || query.subscriberId !== undefined || !only) return undefined;
  const length = [...only[1].toLowerCase()].length;
  return length >= 1 && length <= maxKeptGram ? only : undefined;
}

export class SubscriberStore {
  private readonly db: Kysely<Database>;
  private readonly totalCountCap: number;
  private readonly reads: Kysely<Database>;
  private readonly substring: SubstringFilter;

  /** `reads` serves search (a read replica when there is one); `db` (the primary) serves patch and its reads. */
  constructor(db: Kysely<Database>, totalCountCap: number, reads: Kysely<Database>, substring: SubstringFilter) {
    this.db = db;
    this.totalCountCap = totalCountCap;
    this.reads = reads;
    this.substring = substring;
  }

  /** One page of a cursor walk in (orderBy, _id) order, with the filter's total count (capped). */
  async search(environmentId: string, query: SubscriberSearch): Promise<SubscriberPage> {
    const column = sortColumns[query.orderBy];
    const ascending = query.orderDirection === "ASC";
    const cursorId = query.after ?? query.before;
    // A lone term of up to three characters is counted from its kept count, so only its page reads the rows.
    const lone = loneShortTerm(query);
    const substring = await this.substringConditions(query, lone !== undefined);
    const matching = (eb: Where) => eb.and([...this.filters(eb, environmentId, query), ...substring]);
    // The count does not depend on the page: it runs beside it, on another connection of the pool.
    const counting = this.count(environmentId, query, matching, lone);
    counting.catch(() => {}); // awaited below; this only keeps an early return from leaving it unhandled
    // Rows strictly after (or before) a sort key, in the page's direction.
    const beyond = (eb: Where, key: readonly [unknown, string], forward: boolean, inclusive = false) => {
      const op = forward === ascending ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
      return eb(eb.refTuple(column, "id"), op, eb.tuple(key[0] as never, key[1]));
    };

    const keyOf = (row: { id: string }) => [(row as Record<string, unknown>)[column], row.id] as const;
    let cursorKey: readonly [unknown, string] | undefined;
    if (cursorId) {
      const cursor = await this.reads
        .selectFrom("subscribers")
        .select(["id", column])
        .where("environment_id", "=", environmentId)
        .where("id", "=", cursorId)
        .where("deleted", "=", false)
        .executeTakeFirst();
      if (!cursor) return { data: [], next: null, previous: null, ...(await counting) };
      cursorKey = keyOf(cursor);
    }

    const forward = query.before === undefined;
    const direction = forward === ascending ? "asc" : "desc";
    // The page's ids first (from an index alone where it can), then only those rows whole.
    let pageIds = this.reads
      .selectFrom("subscribers")
      .select("id")
      .where(matching)
      .orderBy(column, direction)
      .orderBy("id", direction)
      .limit(query.limit + 1);
    if (cursorKey) {
      const key = cursorKey;
      pageIds = pageIds.where((eb) => beyond(eb, key, forward, query.includeCursor));
    }
    const rows = await this.reads
      .selectFrom("subscribers")
      .select(answerColumns)
      .where("environment_id", "=", environmentId)
      .where("id", "in", pageIds)
      .orderBy(column, direction)
      .orderBy("id", direction)
      .execute();
    const more = rows.length > query.limit;
    const items = rows.slice(0, query.limit);
    if (!forward) items.reverse();

    const exists = async (key: readonly [unknown, string], onward: boolean) =>
      (await this.reads
        .selectFrom("subscribers")
        .select("id")
        .where(matching)
        .where((eb) => beyond(eb, key, onward))
        // Ordered from the key, so that the sort index answers it (a plain LIMIT 1 may scan the table from its start).
        .orderBy(column, onward === ascending ? "asc" : "desc")
        .orderBy("id", onward === ascending ? "asc" : "desc")
        .limit(1)
        .executeTakeFirst()) !== undefined;

    const first = items[0];
    const last = items.at(-1);
    let next: string | null = null;
    let previous: string | null = null;
    if (first && last) {
      // The look-ahead row answers for the side the page was read towards; the other side needs a query.
      const rowsFollow = forward ? more : await exists(keyOf(last), true);
      const rowsPrecede = forward ? cursorKey !== undefined && (await exists(keyOf(first), false)) : more;
      next = rowsFollow ? last.id : null;
      previous = rowsPrecede ? first.id : null;
    }
    return { data: items.map(toSubscriber), next, previous, ...(await counting) };
  }

  /**
   * Counts matching rows up to the cap; past it, reports the cap. Without a filter, or with a `lone` short term
   * (loneShortTerm), a kept count answers.
   */
  private async count(
    environmentId: string,
    query: SubscriberSearch,
    matching: (eb: Where) => Expression<SqlBool>,
    lone: [SearchedColumn, string] | undefined,
  ) {
    const cap = this.totalCountCap;
    const capped = (n: number) =>
      n > cap ? { totalCount: cap, totalCountCapped: true } : { totalCount: n, totalCountCapped: false };
    const filtered = [query.email, query.phone, query.name, query.subscriberId].some((value) => value !== undefined);
    if (!filtered) {
      const row = await this.reads
        .selectFrom("subscriber_counts")
        .select("live")
        .where("environment_id", "=", environmentId)
        .executeTakeFirst();
      return capped(Number(row?.live ?? 0));
    }
    const limited = this.reads
      .selectFrom("subscribers")
      .select(sql`1`.as("one"))
      .where(matching)
      .limit(cap + 1)
      .as("limited");
    const counted = this.reads.selectFrom(limited).select(sql<number>`count(*)::int`.as("n"));
    if (lone) return capped(await this.keptGramCount(environmentId, lone, counted));
    const emailOnly =
      query.email !== undefined && [query.phone, query.name, query.subscriberId].every((v) => v === undefined);
    if (!emailOnly) return capped((await counted.executeTakeFirstOrThrow()).n);
    // Subscribers of the large domains that contain the term match it too (migration 003): when they alone pass the
    // cap, the rows need not be read. PostgreSQL runs a CASE branch's subquery only when the branch is taken.
    const inLargeDomains = this.reads
      .selectFrom("subscriber_email_domains")
      .select(sql<string>`coalesce(sum(live), 0)`.as("live"))
      .where("environment_id", "=", environmentId)
      .where(sql.ref("live"), ">=", sql.lit(largeDomain))
      .where(sql<SqlBool>`domain LIKE lower(${likeContains(query.email as string)})`);
    const row = await this.reads
      .selectNoFrom(sql<number>`CASE WHEN (${inLargeDomains}) > ${cap} THEN ${cap + 1} ELSE (${counted}) END`.as("n"))
      .executeTakeFirstOrThrow();
    return capped(Number(row.n));
  }

  /**
   * How many live subscribers hold a term of up to three characters in a searched column: the kept count of that gram
   * (migration 004), which is exactly the search's count. Should the database's lower() make the term longer than
   * JavaScript's did, the rows are counted instead.
   */
  private async keptGramCount(
    environmentId: string,
    [column, term]: [SearchedColumn, string],
    counted: SelectQueryBuilder<Database, never, { n: number }>,
  ): Promise<number> {
    const kept = this.reads
      .selectFrom("subscriber_search_gram_counts")
      .select(sql<string>`coalesce(sum(live), 0)`.as("live"))
      .where("environment_id", "=", environmentId)
      .where("searched", "=", column)
      .where("gram", "=", sql<string>`lower(${term})`);
    const short = sql<SqlBool>`char_length(lower(${term})) BETWEEN 1 AND ${sql.lit(maxKeptGram)}`;
    const row = await this.reads
      .selectNoFrom(sql<string>`CASE WHEN ${short} THEN (${kept}) ELSE (${counted}) END`.as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private filters(eb: Where, environmentId: string, query: SubscriberSearch): Expression<SqlBool>[] {
    const conditions = [eb("environment_id", "=", environmentId), eb("deleted", "=", false)];
    if (query.subscriberId !== undefined) conditions.push(eb("subscriber_id", "=", query.subscriberId));
    return conditions;
  }

  /** The case-insensitive substring filters (substring-filter.ts); they read the gram statistics, hence apart. */
  private async substringConditions(query: SubscriberSearch, countKept: boolean): Promise<Expression<SqlBool>[]> {
    return Promise.all(
      substringTerms(query).map(([column, term]) => this.substring.condition("subscribers", column, term, countKept)),
    );
  }

  async findBySubscriberId(environmentId: string, subscriberId: string): Promise<Subscriber | undefined> {
    const row = await this.db
      .selectFrom("subscribers")
      .select(answerColumns)
      .where("environment_id", "=", environmentId)
      .where("subscriber_id", "=", subscriberId)
      .where("deleted", "=", false)
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
      const updated = await this.db
        .updateTable("subscribers")
        .set(values)
        .set((eb) => ({
          version: eb("version", "+", 1),
          // The statement's time, never before the time it replaces: a PATCH that waited for another one's row lock
          // started before that one wrote. (Not clock_timestamp(): Citus runs no volatile function in an UPDATE.)
          updated_at: sql<Date>`greatest(date_trunc('milliseconds', statement_timestamp()), updated_at)`,
        }))
        .where("environment_id", "=", environmentId)
        .where("subscriber_id", "=", subscriberId)
        .where("deleted", "=", false)
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
        .returning(answerColumns)
        .modifyEnd(prepared)
        .executeTakeFirst();
      if (updated) return toSubscriber(updated);
    }
    return this.findBySubscriberId(environmentId, subscriberId);
  }
}
