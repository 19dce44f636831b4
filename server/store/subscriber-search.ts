/**
 * Subscriber search in SQL: each filter the contract declares (contract/model/inputs/search-subscribers.ts) by its
 * name, a keyset walk on (orderBy, _id) in either direction (the `updatedAt` order on the order rows kept beside the
 * subscribers, migration 010), and the count of every match up to the cap, from a kept count where one is exact.
 * test/server/store-model.test.ts holds every filter of the declaration to the model.
 */
import { type QueryInputName, type SubscriberCursor, storableInstant } from "@novu-query/contract/model";
import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import { generic, prepared } from "./prepared-statements.js";
import { ReusableStatement } from "./reusable-statement.js";
import type { Database } from "./schema.js";
import { likeContains, liveOnly, pageBound, toIso } from "./sql-helpers.js";
import { type AnswerRow, searchPageColumns } from "./subscriber-columns.js";
import type { ConditionUse, SearchedColumn, SubstringFilter } from "./substring-filter.js";

export type SubscriberOrderBy = "_id" | "createdAt" | "updatedAt";
type FilterName = QueryInputName<"searchSubscribers", "filter">;

export interface SubscriberSearch extends Partial<Record<FilterName, string>> {
  limit: number;
  orderBy: SubscriberOrderBy;
  orderDirection: "ASC" | "DESC";
  includeCursor: boolean;
  after?: string | undefined;
  before?: string | undefined;
}

export interface SubscriberCounts {
  totalCount: number;
  totalCountCapped: boolean;
}

type Where = ExpressionBuilder<Database, "subscribers">;
type Condition = (eb: Where) => Expression<SqlBool>;

/**
 * A filter's condition, and whether an index gives the rows it matches (`indexed`): a statement it filters reads every
 * match, where a condition tested on rows in the order's index may stop at a page.
 */
interface FilterCondition {
  condition: Condition;
  indexed: boolean;
}

/** How the store answers one search filter: its condition, and, for a substring filter, the column it searches. */
interface FilterSql {
  /** The column whose terms of up to three characters have kept counts (migration 004); absent for exact filters. */
  searched?: SearchedColumn;
  /** The condition; a substring filter reads the gram statistics to choose its index (substring-filter.ts). */
  condition(value: string, substring: SubstringFilter, use: ConditionUse): FilterCondition | Promise<FilterCondition>;
}

function substringSql(column: SearchedColumn): FilterSql {
  return {
    searched: column,
    async condition(term, substring, use) {
      const { expression, indexed } = await substring.indexedCondition("subscribers", column, term, use);
      return { condition: () => expression, indexed };
    },
  };
}

/** The SQL of every search filter the contract declares, by its name: a filter declared and missing here fails the typecheck. */
const filterSql: { [Name in FilterName]: FilterSql } = {
  email: substringSql("email"),
  name: substringSql("name"),
  phone: substringSql("phone"),
  subscriberId: { condition: (value) => ({ condition: (eb) => eb("subscriber_id", "=", value), indexed: true }) },
};

const sortColumns = { _id: "id", createdAt: "created_at", updatedAt: "updated_at" } as const;

/** The longest gram whose live subscribers are kept counted (migration 004). */
const maxKeptGram = 3;
/** The partial index of subscriber_email_domains holds the domains with at least this many live subscribers. */
const largeDomain = 1000;

/** The search's filters that have a value, by name. */
function givenFilters(query: SubscriberSearch): [FilterName, string][] {
  return (Object.keys(filterSql) as FilterName[]).flatMap((name) => {
    const value = query[name];
    return value === undefined ? [] : [[name, value] as [FilterName, string]];
  });
}

/** The term of an e-mail filter given alone: its count reads its large domains first (`emailTermCountSql`). */
function loneEmailTerm(query: SubscriberSearch): string | undefined {
  const given = givenFilters(query);
  return given.length === 1 && given[0]?.[0] === "email" ? given[0][1] : undefined;
}

/** The search's only filter, when it is a substring term of one to three characters: its count is kept. */
function loneShortTerm(query: SubscriberSearch): [SearchedColumn, string] | undefined {
  const [only, ...others] = givenFilters(query);
  const searched = only && filterSql[only[0]].searched;
  if (!only || others.length > 0 || !searched) return undefined;
  const length = [...only[1].toLowerCase()].length;
  return length >= 1 && length <= maxKeptGram ? [searched, only[1]] : undefined;
}

/**
 * Reading a row in an order's index to test it costs about this many times more than testing an index entry when the
 * index does not carry the searched columns (the `_id` order's does, migration 001): the `createdAt` and `updatedAt`
 * walks fetch each row they pass.
 */
const rowFetchCost = 8;
/** What passing one row of an order's index costs, in index entries tested. */
function passCost(column: (typeof sortColumns)[SubscriberOrderBy]): number {
  return column === "id" ? 1 : rowFetchCost;
}
/** A bounded walk passes at most this many times the rows it expects to pass before it gives the page up (D58). */
const walkMargin = 4;

/** A sort key: the order column's value and the `_id`. */
type Key = readonly [unknown, string];

/** A search's order, and which way its page is read: towards the end of the order (`after`, or no cursor) or its start. */
interface SearchOrder {
  orderBy: SubscriberOrderBy;
  orderDirection: SubscriberSearch["orderDirection"];
  forward: boolean;
}

/** What decides the text of an unfiltered search's page statement (D69): its order, its cursor, its size. */
interface UnfilteredPageShape extends SearchOrder {
  cursor: boolean;
  includeCursor: boolean;
  limit: number;
}

/** One search, planned: the matching condition and the order, and how to read rows past a key. */
class SearchPlan {
  readonly column: (typeof sortColumns)[SubscriberOrderBy];
  readonly ascending: boolean;
  /** Read towards the end of the order (`after`, or no cursor), or towards its start (`before`). */
  readonly forward: boolean;
  readonly matching: Condition;
  /** The filters' conditions alone (`matching` is these, the environment and `deleted`). */
  readonly filtered: Condition;
  readonly environmentId: string;
  /**
   * A bounded walk (D58): its page reads at most this many rows of the order past its cursor, and is undecided when
   * they hold too few matches (the matches lie further on, or nowhere); undefined: a walk to the end.
   */
  readonly visit: number | undefined;
  /**
   * No filter: the walk's best plan is the order's index whatever the values (the environment, the cursor's key), so
   * its statements run on their generic plan, planned once per connection (D56). A filter's plan depends on how many
   * rows its value matches (D18, D28), so a filtered walk is planned for its values.
   */
  readonly unfiltered: boolean;
  /**
   * A filter's rows come from an index (an exact subscriberId, a term read through its grams): its page reads every
   * match to sort them, so counting them as well costs little more (D76).
   */
  readonly readsEveryMatch: boolean;

  constructor(order: SearchOrder, environmentId: string, filters: FilterCondition[], visit?: number) {
    const conditions = filters.map((filter) => filter.condition);
    this.environmentId = environmentId;
    this.visit = visit;
    this.filtered = (eb) => eb.and(conditions.map((condition) => condition(eb)));
    this.unfiltered = conditions.length === 0;
    this.readsEveryMatch = visit === undefined && filters.some((filter) => filter.indexed);
    this.column = sortColumns[order.orderBy];
    this.ascending = order.orderDirection === "ASC";
    this.forward = order.forward;
    this.matching = (eb) =>
      eb.and([
        eb("environment_id", "=", environmentId),
        eb("deleted", "=", liveOnly),
        ...conditions.map((condition) => condition(eb)),
      ]);
  }

  /**
   * A row's sort key. A time read as text (a search page's, `timeText`) is the Date the driver would have read, to the
   * millisecond, as every key from a cursor is.
   */
  keyOf(row: { id: string }): Key {
    const value = (row as Record<string, unknown>)[this.column];
    return [this.column !== "id" && typeof value === "string" ? new Date(toIso(value)) : value, row.id];
  }

  /** Rows past `key` towards the end of the order (`onward`) or its start. */
  beyond(key: Key, onward: boolean, inclusive = false): Condition {
    const op = onward === this.ascending ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
    return (eb) => eb(eb.refTuple(this.column, "id"), op, eb.tuple(key[0] as never, key[1]));
  }

  direction(onward: boolean): "asc" | "desc" {
    return onward === this.ascending ? "asc" : "desc";
  }
}

export type { SearchPlan };

/**
 * An order row (migration 010) whose subscriber passes the plan's filters. Unqualified names bind to the nearest FROM:
 * in the subquery the subscriber's columns (the filters'), outside it the order row's.
 */
function orderRowMatches(plan: SearchPlan) {
  return (eb: ExpressionBuilder<Database, "subscriber_update_order">) =>
    eb.exists(
      eb
        .selectFrom("subscribers")
        .select(sql`1`.as("one"))
        .whereRef("subscribers.environment_id", "=", "subscriber_update_order.environment_id")
        .whereRef("subscribers.id", "=", "subscriber_update_order.id")
        .where(plan.matching as never),
    );
}

/** Whether the cursor's place in the plan's order is the one it carries (an `updatedAt` order), not its row's. */
export function carriesPlace(plan: SearchPlan, cursor: SubscriberCursor): boolean {
  return plan.column === "updated_at" && cursor.updatedAt !== undefined;
}

export class SubscriberSearchQueries {
  private readonly reads: Kysely<Database>;
  private readonly totalCountCap: number;
  private readonly substring: SubstringFilter;

  constructor(reads: Kysely<Database>, totalCountCap: number, substring: SubstringFilter) {
    this.reads = reads;
    this.totalCountCap = totalCountCap;
    this.substring = substring;
  }

  /**
   * The search's plan: each given filter's condition (a lone short term's count is kept, which its plan follows).
   * `visit`: a bounded walk in the order's index, for matches the count found dense (`walkBound`).
   */
  async plan(environmentId: string, query: SubscriberSearch, visit?: number): Promise<SearchPlan> {
    const use: ConditionUse = visit !== undefined ? "walk" : loneShortTerm(query) ? "page" : "count";
    const conditions = await Promise.all(
      givenFilters(query).map(([name, value]) => filterSql[name].condition(value, this.substring, use)),
    );
    const order = { orderBy: query.orderBy, orderDirection: query.orderDirection, forward: query.before === undefined };
    return new SearchPlan(order, environmentId, conditions, visit);
  }

  /**
   * Whether the search's matches may be dense enough for its page to be read in the order's index rather than through
   * the grams, which read every match: only substring terms, one of them common (`SubstringFilter.mayBeDense`), whose
   * count reads the rows. Such a search counts first and walks after (D58).
   */
  async mayBeDense(query: SubscriberSearch): Promise<boolean> {
    const given = givenFilters(query);
    if (given.length === 0 || loneShortTerm(query)) return false;
    const columns = given.map(([name, value]) => [filterSql[name].searched, value] as const);
    if (columns.some(([searched]) => searched === undefined)) return false;
    const walkCost = (query.limit + 1) * passCost(sortColumns[query.orderBy]);
    const dense = await Promise.all(
      columns.map(([searched, term]) => this.substring.mayBeDense(searched as SearchedColumn, term, walkCost)),
    );
    return dense.includes(true);
  }

  /**
   * The bound of a walk in the order's index, when `matches` of the environment's `live` subscribers are dense enough
   * that a page of `limit` (and the look-ahead row) fills from it sooner than the grams read every match; otherwise
   * undefined. A walk expects to pass (limit + 1) × live / matches entries, each costing `rowFetchCost` times more in
   * an order whose index lacks the searched columns; it is bounded at `walkMargin` times that, since the matches may
   * lie together anywhere in the order.
   */
  walkBound(plan: SearchPlan, matches: number, live: number, limit: number): number | undefined {
    if (matches <= 0) return undefined;
    const expected = ((limit + 1) * live) / matches;
    return expected * passCost(plan.column) < matches ? Math.ceil(expected * walkMargin) : undefined;
  }

  /**
   * The sort key a cursor marks (the model's `cursorPosition`): the `updatedAt` it carries in an `updatedAt` order,
   * read from no row; otherwise its subscriber's, or undefined when it names no live subscriber of the environment.
   */
  async cursorKey(plan: SearchPlan, cursor: SubscriberCursor): Promise<Key | undefined> {
    if (carriesPlace(plan, cursor)) {
      const carried = Date.parse(cursor.updatedAt as string);
      const stored = storableInstant(carried);
      // A place before the year 1 lies before every row a store holds (PostgreSQL reads no year 0): the first
      // instant it holds, before every id.
      return stored.getTime() > carried ? [stored, ""] : [stored, cursor.id];
    }
    const row = await this.reads
      .selectFrom("subscribers")
      .select(["id", plan.column])
      .where("environment_id", "=", plan.environmentId)
      .where("id", "=", cursor.id)
      .where("deleted", "=", liveOnly)
      .modifyEnd(prepared)
      .executeTakeFirst();
    return row && plan.keyOf(row);
  }

  /**
   * The matching rows' ids in the plan's order, read towards the end of the order (`onward`) or its start, from `from`
   * on when given. The `updatedAt` order is walked on the order rows kept beside the subscribers (migration 010: a PATCH
   * changes `updated_at`, and indexed on the row it would make every PATCH touch every index), each joined to its
   * subscriber, which the filters read; the other orders on the subscribers' own indexes.
   */
  private idsInOrder(
    plan: SearchPlan,
    onward: boolean,
    limit: number,
    from?: { key: Key; inclusive: boolean },
  ): SelectQueryBuilder<Database, "subscribers", { id: string }> {
    const direction = plan.direction(onward);
    const past = from && plan.beyond(from.key, onward, from.inclusive);
    if (plan.visit !== undefined) return this.boundedIdsInOrder(plan, onward, limit, plan.visit, past);
    if (plan.column === "updated_at") {
      // Outside `orderRowMatches`, the key's `updated_at` and `id` are the order row's.
      return this.reads
        .selectFrom("subscriber_update_order")
        .select("id")
        .where("environment_id", "=", plan.environmentId)
        .where(orderRowMatches(plan))
        .$if(past !== undefined, (ids) => ids.where(past as never))
        .orderBy("updated_at", direction)
        .orderBy("id", direction)
        .limit(pageBound(limit)) as unknown as SelectQueryBuilder<Database, "subscribers", { id: string }>;
    }
    return this.reads
      .selectFrom("subscribers")
      .select("id")
      .where(plan.matching)
      .$if(past !== undefined, (ids) => ids.where(past as Condition))
      .orderBy(plan.column, direction)
      .orderBy("id", direction)
      .limit(pageBound(limit));
  }

  /**
   * `idsInOrder` for a bounded walk: the first `visit` rows of the order past the key, from the order's index alone
   * where it can (no filter in it), then the matches among them. What it finds are the first matches of the order;
   * what it does not find may lie past the bound.
   */
  private boundedIdsInOrder(
    plan: SearchPlan,
    onward: boolean,
    limit: number,
    visit: number,
    past: Condition | undefined,
  ): SelectQueryBuilder<Database, "subscribers", { id: string }> {
    const direction = plan.direction(onward);
    if (plan.column === "updated_at") {
      const orderRows = this.reads
        .selectFrom("subscriber_update_order")
        .select(["environment_id", "id", "updated_at"])
        .where("environment_id", "=", plan.environmentId)
        .$if(past !== undefined, (rows) => rows.where(past as never))
        .orderBy("updated_at", direction)
        .orderBy("id", direction)
        .limit(visit);
      return this.reads
        .selectFrom(orderRows.as("subscriber_update_order"))
        .select("id")
        .where(orderRowMatches(plan) as never)
        .orderBy("updated_at", direction)
        .orderBy("id", direction)
        .limit(pageBound(limit)) as unknown as SelectQueryBuilder<Database, "subscribers", { id: string }>;
    }
    const rows = this.reads
      .selectFrom("subscribers")
      .select(["id", "email_search", "phone_search", "name_search"])
      .$if(plan.column !== "id", (columns) => columns.select(plan.column as "created_at"))
      .where("environment_id", "=", plan.environmentId)
      .where("deleted", "=", liveOnly)
      .$if(past !== undefined, (ids) => ids.where(past as Condition))
      .orderBy(plan.column, direction)
      .orderBy("id", direction)
      .limit(visit);
    return this.reads
      .selectFrom(rows.as("subscribers"))
      .select("id")
      .where(plan.filtered as never)
      .orderBy(plan.column as "created_at", direction)
      .orderBy("id", direction)
      .limit(pageBound(limit)) as unknown as SelectQueryBuilder<Database, "subscribers", { id: string }>;
  }

  /**
   * The page's rows, in the page's order, and whether more rows lie beyond it in the direction it was read: one row
   * more is read to know. The ids come first (from an index alone where it can), then only those rows whole. With no
   * filter the kept count of live subscribers comes with them (`live`, when there are rows), one round trip for the
   * search where the count would take a second (D56). A bounded walk's page is undefined when its bound held too few
   * matches to fill it (D58).
   */
  async page(plan: SearchPlan, query: SubscriberSearch, cursor: Key | undefined, counted = false) {
    type Row = AnswerRow & { live?: string | null; matched?: string };
    const from = cursor && { key: cursor, inclusive: query.includeCursor };
    const rows = (
      counted
        ? await this.countedPageStatement(plan, query, from).execute()
        : plan.unfiltered
          ? await this.unfilteredPage.execute(
              this.reads,
              {
                orderBy: query.orderBy,
                orderDirection: query.orderDirection,
                forward: plan.forward,
                cursor: cursor !== undefined,
                includeCursor: query.includeCursor,
                limit: query.limit,
              },
              { environmentId: plan.environmentId, cursorValue: cursor?.[0], cursorId: cursor?.[1] },
            )
          : await this.pageStatement(plan, query.limit, from).execute()
    ) as Row[];
    if (plan.visit !== undefined && rows.length <= query.limit) return undefined;
    const items = rows.slice(0, query.limit);
    if (!plan.forward) items.reverse();
    // Present on every row when the page asked for it (`$if` types it as optional).
    const live = (rows[0] as { live?: unknown } | undefined)?.live;
    // Counted, an empty page from no cursor has no match to count; past a cursor, the matches may lie before it.
    const matched = !counted ? undefined : rows[0] ? Number(rows[0].matched) : cursor === undefined ? 0 : undefined;
    return {
      items,
      more: rows.length > query.limit,
      live: live === undefined ? undefined : Number(live ?? 0),
      matched,
    };
  }

  /**
   * A filtered page with every match counted beside it (`matched`, on each row), for a plan that reads every match
   * anyway (`readsEveryMatch`): the matches are read once, into a materialized CTE that both the count and the page's
   * ids are taken from, where a page and a count side by side read them twice (D76). Planned for its values, as
   * every filtered statement.
   */
  private countedPageStatement(
    plan: SearchPlan,
    query: SubscriberSearch,
    from: { key: Key; inclusive: boolean } | undefined,
  ) {
    const direction = plan.direction(plan.forward);
    const everyMatch = this.reads.selectFrom("matches" as never).select(sql<string>`count(*)`.as("n"));
    // An e-mail term alone is counted as `count` counts it: its large domains first.
    const email = loneEmailTerm(query);
    const matched =
      email === undefined ? sql`(${everyMatch})` : this.emailTermCountSql(plan.environmentId, email, everyMatch);
    const past = from && plan.beyond(from.key, plan.forward, from.inclusive);
    const matches = this.reads
      .selectFrom("subscribers")
      .select("id")
      .$if(plan.column !== "id", (columns) => columns.select(plan.column as "created_at"))
      .where(plan.matching);
    return this.reads
      .with(
        (cte) => cte("matches").materialized(),
        () => matches,
      )
      .selectFrom("subscribers")
      .select(searchPageColumns)
      .select(sql<string>`${matched}`.as("matched"))
      .where("id", "in", (eb) =>
        eb
          .selectFrom("matches")
          .select("id")
          .$if(past !== undefined, (ids) => ids.where(past as never))
          .orderBy(plan.column as "created_at", direction)
          .orderBy("id", direction)
          .limit(pageBound(query.limit + 1)),
      )
      .where("environment_id", "=", plan.environmentId)
      .orderBy(plan.column, direction)
      .orderBy("id", direction);
  }

  /**
   * A page's statement: the ids in order (`idsInOrder`), then only those rows, their answer's columns; with no filter,
   * the kept count of live subscribers beside them, on the generic plan.
   */
  private pageStatement(plan: SearchPlan, limit: number, from: { key: Key; inclusive: boolean } | undefined) {
    const direction = plan.direction(plan.forward);
    return this.reads
      .selectFrom("subscribers")
      .select(searchPageColumns)
      .$if(plan.unfiltered, (statement) => statement.select(this.liveSubscribersQuery(plan.environmentId).as("live")))
      .where("id", "in", this.idsInOrder(plan, plan.forward, limit + 1, from))
      .where("environment_id", "=", plan.environmentId)
      .orderBy(plan.column, direction)
      .orderBy("id", direction)
      .$if(plan.unfiltered, (statement) => statement.modifyEnd(generic));
  }

  /**
   * The unfiltered search's page, built once per shape (D69): the environment and the cursor's key are its values. Its
   * plan is the order's index whatever they are (D56).
   */
  private readonly unfilteredPage = new ReusableStatement(
    "unfiltered subscriber search page",
    (shape: UnfilteredPageShape) =>
      `${shape.orderBy}/${shape.orderDirection}/${shape.forward}/${shape.cursor}/${shape.includeCursor}/${shape.limit}`,
    (
      _db: Kysely<Database>,
      shape,
      values: { environmentId: string; cursorValue: unknown; cursorId: string | undefined },
    ) => {
      const plan = new SearchPlan(shape, values.environmentId, []);
      const key: Key = [values.cursorValue, values.cursorId as string];
      return this.pageStatement(plan, shape.limit, shape.cursor ? { key, inclusive: shape.includeCursor } : undefined);
    },
  );

  /**
   * Whether a matching row lies past `key`, towards the end of the order (`onward`) or its start; undefined when a
   * bounded walk's bound holds none (D58).
   */
  async exists(plan: SearchPlan, key: Key, onward: boolean): Promise<boolean | undefined> {
    // Ordered from the key, so that the sort index answers it (a plain LIMIT 1 may scan the table from its start).
    const row = await this.idsInOrder(plan, onward, 1, { key, inclusive: false })
      .$if(plan.unfiltered, (statement) => statement.modifyEnd(generic))
      .executeTakeFirst();
    return row !== undefined ? true : plan.visit !== undefined ? undefined : false;
  }

  /**
   * Every match counted up to the cap (past it, the cap). A kept count answers where it is exact: no filter, a lone
   * term of up to three characters; an e-mail term whose large domains alone pass the cap need not read the rows.
   */
  async count(plan: SearchPlan, query: SubscriberSearch): Promise<SubscriberCounts> {
    const { environmentId } = plan;
    const given = givenFilters(query);
    const lone = loneShortTerm(query);
    const email = loneEmailTerm(query);
    const counted = this.rowsUpToCap(plan);
    let n: number;
    if (given.length === 0) n = await this.liveSubscribers(environmentId);
    else if (lone) n = await this.keptGramCount(environmentId, lone, counted);
    else if (email !== undefined) n = await this.emailTermCount(environmentId, email, counted);
    else n = (await counted.executeTakeFirstOrThrow()).n;
    return this.capped(n);
  }

  /** Whether the search's count is kept, not read from rows: no filter, or a lone term of up to three characters. */
  countIsKept(query: SubscriberSearch): boolean {
    return givenFilters(query).length === 0 || loneShortTerm(query) !== undefined;
  }

  /** A count as the answer gives it: past the cap, the cap. */
  capped(n: number): SubscriberCounts {
    const cap = this.totalCountCap;
    return n > cap ? { totalCount: cap, totalCountCapped: true } : { totalCount: n, totalCountCapped: false };
  }

  /** The matching rows, counted up to one past the cap. */
  private rowsUpToCap(plan: SearchPlan): SelectQueryBuilder<Database, never, { n: number }> {
    const limited = this.reads
      .selectFrom("subscribers")
      .select(sql`1`.as("one"))
      .where(plan.matching)
      .limit(this.totalCountCap + 1)
      .as("limited");
    return this.reads.selectFrom(limited).select(sql<number>`count(*)::int`.as("n"));
  }

  /** The environment's live subscribers, as kept: a lookup by key. */
  async liveSubscribers(environmentId: string): Promise<number> {
    const row = await this.reads
      .selectNoFrom(this.liveSubscribersQuery(environmentId).as("live"))
      .modifyEnd(prepared)
      .executeTakeFirst();
    return Number(row?.live ?? 0);
  }

  /** The environment's live subscribers, as kept (migration 002). */
  private liveSubscribersQuery(environmentId: string) {
    return this.reads.selectFrom("subscriber_counts").select("live").where("environment_id", "=", environmentId);
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

  /**
   * An e-mail term alone: subscribers of the large domains that contain the term match it too (migration 003), so when
   * they alone pass the cap, the rows need not be read. PostgreSQL runs a CASE branch's subquery only when it is taken.
   */
  private async emailTermCount(
    environmentId: string,
    term: string,
    counted: SelectQueryBuilder<Database, never, { n: number }>,
  ): Promise<number> {
    const row = await this.reads
      .selectNoFrom(this.emailTermCountSql(environmentId, term, counted).as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** `emailTermCount`'s expression: one past the cap when the term's large domains alone pass it, else `counted`. */
  private emailTermCountSql(environmentId: string, term: string, counted: Expression<unknown>) {
    const cap = this.totalCountCap;
    // The domains with a row of at least `largeDomain` (migration 003's partial index), each counted whole: the sum of
    // all its rows, one per connection that wrote it (migration 007).
    const largeDomains = this.reads
      .selectFrom("subscriber_email_domains")
      .select("domain")
      .where("environment_id", "=", environmentId)
      .where(sql.ref("live"), ">=", sql.lit(largeDomain))
      .where(sql<SqlBool>`domain LIKE lower(${likeContains(term)})`);
    const inLargeDomains = this.reads
      .selectFrom("subscriber_email_domains")
      .select(sql<string>`coalesce(sum(live), 0)`.as("live"))
      .where("environment_id", "=", environmentId)
      .where("domain", "in", largeDomains);
    return sql<number>`CASE WHEN (${inLargeDomains}) > ${cap} THEN ${cap + 1} ELSE (${counted}) END`;
  }
}
