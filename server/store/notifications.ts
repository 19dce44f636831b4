import type { QueryInputName } from "@novu-query/contract/model";
import type { Notification, operations } from "@novu-query/contract/types";
import {
  type Expression,
  type ExpressionBuilder,
  type JoinBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import { answerText, type LiveText, liveColumnsOf, toNotification } from "./notification-answer.js";
import { generic, prepared } from "./prepared-statements.js";
import { ReusableStatement } from "./reusable-statement.js";
import type { Database, NotificationsTable } from "./schema.js";
import { liveOnly, pageBound, toIso } from "./sql-helpers.js";
import type { SubstringFilter } from "./substring-filter.js";

type FilterName = QueryInputName<"listNotifications", "filter">;
type SubscriberFilterName = QueryInputName<"listNotifications", "subscriber-filter">;
type Filters = NonNullable<operations["listNotifications"]["parameters"]["query"]>;

/** A list as the store reads it: the filters the contract declares, by name, a page, and the window's instants. */
export type NotificationQuery = { [Name in FilterName | SubscriberFilterName]?: Filters[Name] | undefined } & {
  page: number;
  limit: number;
  after: Date;
  before: Date;
};

export interface NotificationPage {
  data: Notification[];
  hasMore: boolean;
  page: number;
  pageSize: number;
}

type Tables = Database & { s: Database["subscribers"]; w: Database["workflows"]; n: Database["notifications"] };
type Where = ExpressionBuilder<Tables, "n">;

type JoinedRow = Selectable<NotificationsTable> & LiveText;

/** A row of a page: the notification's kept answer (null for a row written before D59) and its summaries' columns. */
interface PageRow extends LiveText {
  id: string;
  answer: string | null;
}

/**
 * A whole row's answer: its kept text with its summaries, or built the typed way where it has none (written before
 * migration 012). Read again after the page's statement, a row may have been rewritten in between (answer-fill.ts):
 * either way gives the same bytes.
 */
function textOf(row: JoinedRow): string {
  return row.answer === null ? JSON.stringify(toNotification(liveColumnsOf(row))) : answerText(row.answer, row);
}

/** A notification's answer as JSON text, and when it was created (for the retention check of a read by id). */
export interface NotificationAnswer {
  createdAt: string;
  text: string;
}

/**
 * Up to this many matching notifications are collected and sorted rather than found by walking the newest-first
 * index: both cost a few milliseconds at 1M rows, and beyond it the walk wins (matches are dense enough to fill a
 * page soon). Tests set it to 0 and to Infinity to check that both ways give the same pages.
 */
export const defaultRareTermLimit = 2000;

/**
 * The deepest offset at which the unfiltered list runs on its generic plan (D46). Planned without its values, the
 * generic plan cannot prune the monthly partitions, so it costs the newest-first walk as one per partition, each as
 * long as the offset, and past some offset takes reading and sorting the environment's whole window for cheaper: on
 * the bench:citus data (190,000 notifications in one environment, eleven partitions) at offset 500, 198 ms, where the
 * walk took 1.3-1.5 ms up to offset 200 (D62). Deeper pages are planned for their values (4-7 ms at offsets 1,000 and
 * 10,000 there).
 */
export const genericOffsetBound = 100;

const joinedColumns = [
  "s.id as s_id",
  "s.subscriber_id as s_subscriber_id",
  "s.first_name as s_first_name",
  "s.last_name as s_last_name",
  "s.email as s_email",
  "s.phone as s_phone",
  "w.id as w_id",
  "w.name as w_name",
  "w.origin as w_origin",
  sql<string | null>`w.triggers::text`.as("w_triggers_text"),
] as const;

/**
 * A notification's subscriber and workflow, by their whole keys: the environment too, which on Citus keeps the join on
 * the one shard that holds the environment (server/store/citus/).
 */
const joinSubscriber = (join: JoinBuilder<Tables & { s: Database["subscribers"] }, "n" | "s">) =>
  join.onRef("s.environment_id", "=", "n.environment_id").onRef("s.id", "=", "n.subscriber_id");
const joinWorkflow = (join: JoinBuilder<Tables & { w: Database["workflows"] }, "n" | "w">) =>
  join.onRef("w.environment_id", "=", "n.environment_id").onRef("w.id", "=", "n.template_id");

/** The SQL of each notification filter the contract declares, by its name (a filter missing here fails the typecheck). */
const filterSql: { [Name in FilterName]: (eb: Where, value: NonNullable<Filters[Name]>) => Expression<SqlBool> } = {
  channels: (eb, channels) => eb("n.channels", "&&", sql<string[]>`${channels}::text[]`),
  templates: (eb, templates) => eb("n.template_id", "in", templates),
  severity: (eb, severities) => {
    const listed = eb("n.severity", "in", severities);
    return severities.includes("none") ? eb.or([listed, eb("n.severity", "is", null)]) : listed;
  },
  transactionId: (eb, transactionId) => eb("n.transaction_id", "=", transactionId),
  topicKey: (eb, topicKey) => eb("n.topic_keys", "@>", sql<string[]>`${[topicKey]}::text[]`),
};

/** This environment's live subscribers (aliased `r`), which a subscriber filter narrows. */
type LiveSubscribers = () => SelectQueryBuilder<Tables & { r: Database["subscribers"] }, "r", { id: string }>;
type SubscriberSelects = ReturnType<LiveSubscribers>[];

/**
 * The SQL of each subscriber filter the contract declares, by its name: the subscribers it resolves to, as SELECTs
 * whose union the filters' subscribers are (each its own SELECT, so that each uses its index). `search` reads the
 * gram statistics first (substring-filter.ts).
 */
const subscriberFilterSql: {
  [Name in SubscriberFilterName]: (
    live: LiveSubscribers,
    value: NonNullable<Filters[Name]>,
    substring: SubstringFilter,
  ) => SubscriberSelects | Promise<SubscriberSelects>;
} = {
  emails: (live, emails) => [live().where("r.email", "in", emails)],
  subscriberIds: (live, subscriberIds) => [live().where("r.subscriber_id", "in", subscriberIds)],
  search: async (live, text, substring) => {
    const email = await substring.condition("r", "email", text);
    return [live().where(email), live().where("r.subscriber_id", "=", text)];
  },
};

/** Whether the query gives any filter on the notification itself (its window aside). */
const hasFilter = (query: NotificationQuery) =>
  (Object.keys(filterSql) as FilterName[]).some((name) => given(query, name) !== undefined);

/** Whether the query gives any filter on the notification's subscriber. */
const hasSubscriberFilter = (query: NotificationQuery) =>
  (Object.keys(subscriberFilterSql) as SubscriberFilterName[]).some((name) => given(query, name) !== undefined);

/** The query's value for a filter, or undefined when it has none (an empty list is none). */
function given<Name extends keyof Filters>(
  query: NotificationQuery,
  name: Name,
): NonNullable<Filters[Name]> | undefined {
  const value = (query as Partial<Record<Name, Filters[Name]>>)[name];
  return value === undefined || (Array.isArray(value) && value.length === 0)
    ? undefined
    : (value as NonNullable<Filters[Name]>);
}

/**
 * The conditions on a notification: its environment and window, every filter the query gives (ANDed), and, when
 * the subscriber filters give any SELECTs, a subscriber among their union (none resolving: no rows).
 */
function filters(eb: Where, environmentId: string, query: NotificationQuery, recipients: SubscriberSelects) {
  const conditions: Expression<SqlBool>[] = [
    eb("n.environment_id", "=", environmentId),
    eb("n.created_at", ">=", query.after),
    eb("n.created_at", "<=", query.before),
  ];
  for (const name of Object.keys(filterSql) as FilterName[]) {
    const value = given(query, name);
    if (value !== undefined) conditions.push(filterSql[name](eb, value as never));
  }
  const [first, ...rest] = recipients;
  if (first) {
    conditions.push(eb("n.subscriber_id", "in", rest.reduce((union, part) => union.union(part), first) as never));
  }
  return conditions;
}

/**
 * The ids (and creation times) of the page and one more row. When a filter on channels, severity with channels, or
 * a topic key matches few notifications (by the kept term counts), its matches are collected from the GIN index and
 * sorted; otherwise the newest-first index is walked, which finds a page of a common filter after a few rows but
 * would read the whole environment for a filter that matches nothing.
 */
function pageIds(
  db: Kysely<Tables>,
  environmentId: string,
  query: NotificationQuery,
  rareTerms: string[] | undefined,
  recipients: SubscriberSelects,
) {
  // Written into the statement, not bound: a generic plan (D46) costs a bound LIMIT or OFFSET as a tenth of the rows
  // and sorts the whole window for it (on the bench data, 445,000 rows and 130 ms for a page of the unfiltered list),
  // where with the numbers in the text it reads the newest-first index until the page is full (0.4 ms). Both are
  // whole numbers checked by the contract (limit 1-100, page an int32), so the text is a number and nothing else.
  const limit = pageBound(query.limit + 1);
  const offset = pageBound(query.page * query.limit);
  if (rareTerms) {
    return db
      .with(
        (cte) => cte("candidates").materialized(),
        (inner) =>
          inner
            .selectFrom("notifications as n")
            .select(["n.id", "n.created_at"])
            .where((eb) => eb.and(filters(eb, environmentId, query, recipients)))
            .where("n.filter_terms", "&&", sql<string[]>`${rareTerms}::text[]`),
      )
      .selectFrom("candidates")
      .select(["id", "created_at"])
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .offset(offset)
      .limit(limit);
  }
  return newestFirst(db, environmentId, query, recipients).select(["n.id", "n.created_at"]);
}

/**
 * The walk of the newest-first index over the notifications the query matches, to its page and one more row (its
 * bounds written into the text, as `pageIds` says why); the caller selects what it reads of each row.
 */
function newestFirst(
  db: Kysely<Tables>,
  environmentId: string,
  query: NotificationQuery,
  recipients: SubscriberSelects,
) {
  return db
    .selectFrom("notifications as n")
    .where((eb) => eb.and(filters(eb, environmentId, query, recipients)))
    .orderBy("n.created_at", "desc")
    .orderBy("n.id", "desc")
    .offset(pageBound(query.page * query.limit))
    .limit(pageBound(query.limit + 1));
}

/**
 * A page's statement: its rows' ids (`pageIds`), and only those rows read and joined, so the skipped rows of a deep
 * page cost an index entry, not a wide row and two joins. Each notification's own fields are its kept text (D59), its
 * subscriber and workflow read beside it.
 */
function pageStatement(
  db: Kysely<Tables>,
  environmentId: string,
  query: NotificationQuery,
  rareTerms: string[] | undefined,
  recipients: SubscriberSelects,
) {
  return (
    db
      .selectFrom(pageIds(db, environmentId, query, rareTerms, recipients).as("p"))
      // The whole key, so that each row is looked up in its own month's partition (and, on Citus, shard) only.
      .innerJoin("notifications as n", (join) =>
        join.onRef("n.id", "=", "p.id").onRef("n.created_at", "=", "p.created_at"),
      )
      .leftJoin("subscribers as s", joinSubscriber)
      .leftJoin("workflows as w", joinWorkflow)
      .where("n.environment_id", "=", environmentId)
      .select(["n.id", "n.answer"])
      .select(joinedColumns)
      .orderBy("p.created_at", "desc")
      .orderBy("p.id", "desc")
  );
}

/** What decides the text of a first page's statement (its bounds, written in), and the values bound to it. */
const firstPageShape = ({ limit, page }: { limit: number; page: number }) => `${limit}/${page}`;
type FirstPageValues = { environmentId: string; after: Date; before: Date };

/**
 * The first pages of the unfiltered list (D46, D62), on their generic plan, built once per limit and page
 * (reusable-statement.ts, D69): the environment and the window are its values. One walk of the newest-first index
 * that reads each row it returns, not ids first and each row again by its key (`pageStatement`): on a generic plan
 * the second read is an Append over every month's partition, pruned again for each row, which cost PostgreSQL more than
 * the rows themselves (D71). The rows this walk skips, at most `genericOffsetBound`, cost a heap read each; their kept
 * texts are not read. Not on PGlite (`firstPagesByIds`): there the tables are small, and a generic plan, which takes
 * a window to hold a few rows, sorts the window instead of walking the index, which with the kept texts in the sort
 * cost a page on the demo data more (D71).
 */
const firstPage = new ReusableStatement(
  "unfiltered list page",
  firstPageShape,
  (db: Kysely<Tables>, { limit, page }, { environmentId, after, before }: FirstPageValues) =>
    db
      .selectFrom(
        newestFirst(db, environmentId, { limit, page, after, before }, [])
          .select(["n.id", "n.created_at", "n.answer", "n.subscriber_id", "n.template_id"])
          .as("n"),
      )
      // The environment as a value, not the row's column: the planner then reads only this environment's workflows
      // and looks up each subscriber in a nested loop that keeps the walk's order (measured, D71).
      .leftJoin("subscribers as s", (join) =>
        join.on("s.environment_id", "=", environmentId).onRef("s.id", "=", "n.subscriber_id"),
      )
      .leftJoin("workflows as w", (join) =>
        join.on("w.environment_id", "=", environmentId).onRef("w.id", "=", "n.template_id"),
      )
      .select(["n.id", "n.answer"])
      .select(joinedColumns)
      .orderBy("n.created_at", "desc")
      .orderBy("n.id", "desc")
      .modifyEnd(generic),
);

/** The first pages of the unfiltered list as D46 built them, ids first, then those rows (`pageStatement`): PGlite's. */
const firstPagesByIds = new ReusableStatement(
  "unfiltered list page, ids first",
  firstPageShape,
  (db: Kysely<Tables>, { limit, page }, { environmentId, after, before }: FirstPageValues) =>
    pageStatement(db, environmentId, { limit, page, after, before }, undefined, []).modifyEnd(generic),
);

/**
 * What a read by id sends: the notification's kept text and its summaries' columns (the whole row only for a row written
 * before migration 012, which has no kept text yet). One shape, built once (D69).
 */
const answerById = new ReusableStatement(
  "notification by id",
  () => "",
  (db: Kysely<Tables>, _shape, { environmentId, notificationId }: { environmentId: string; notificationId: string }) =>
    db
      .selectFrom("notifications as n")
      .leftJoin("subscribers as s", joinSubscriber)
      .leftJoin("workflows as w", joinWorkflow)
      .select(["n.answer", "n.created_at"])
      .select(joinedColumns)
      .where("n.environment_id", "=", environmentId)
      .where("n.id", "=", notificationId)
      .modifyEnd(prepared),
);

/** What `rareTerms` answers when the kept counts say that no notification carries a term filter's terms. */
const carriedByNone = Symbol("carried by no notification");

export class NotificationStore {
  private readonly db: Kysely<Database>;
  private readonly rareTermLimit: number;
  private readonly substring: SubstringFilter;
  private readonly firstPages: typeof firstPage;

  /** `firstPagesInOneWalk` (default true): false reads the first pages' ids first (`firstPagesByIds`, PGlite's). */
  constructor(
    db: Kysely<Database>,
    rareTermLimit: number | undefined,
    substring: SubstringFilter,
    firstPagesInOneWalk = true,
  ) {
    this.db = db;
    this.rareTermLimit = rareTermLimit ?? defaultRareTermLimit;
    this.substring = substring;
    this.firstPages = firstPagesInOneWalk ? firstPage : firstPagesByIds;
  }

  /** A notification row with what the answer shows of its subscriber and workflow. */
  private joined() {
    return (this.db as unknown as Kysely<Tables>)
      .selectFrom("notifications as n")
      .leftJoin("subscribers as s", joinSubscriber)
      .leftJoin("workflows as w", joinWorkflow)
      .selectAll("n")
      .select(joinedColumns);
  }

  /**
   * One page, newest first, as the JSON text of its answer; looks one row ahead so that `hasMore` is exact. One
   * statement (`pageStatement`); the unfiltered list's first pages on their generic plan, built once (`firstPage`). In
   * pieces whose concatenation is the page: a page of 50 is over 128 KB, and one string that long is a large-object
   * allocation in V8 for every request (0.7 ms, measured), where the pieces are written into the answer's bytes as they
   * are (`serialized` in @novu-query/express).
   */
  async pagePieces(environmentId: string, query: NotificationQuery): Promise<string[]> {
    const first = !hasFilter(query) && !hasSubscriberFilter(query) && query.page * query.limit <= genericOffsetBound;
    const rows = first
      ? await this.firstPages.execute(
          this.db as unknown as Kysely<Tables>,
          { limit: query.limit, page: query.page },
          { environmentId, after: query.after, before: query.before },
        )
      : await this.otherPage(environmentId, query);
    const answers = await this.answers(environmentId, rows.slice(0, query.limit));
    const pieces = ['{"data":['];
    for (const [i, answer] of answers.entries()) pieces.push(i === 0 ? answer : `,${answer}`);
    pieces.push(`],"hasMore":${rows.length > query.limit},"page":${query.page},"pageSize":${query.limit}}`);
    return pieces;
  }

  /** One page as one JSON text (`pagePieces` joined). */
  async pageText(environmentId: string, query: NotificationQuery): Promise<string> {
    return (await this.pagePieces(environmentId, query)).join("");
  }

  /** One page, newest first, as objects (what `pageText` sends, parsed). */
  async list(environmentId: string, query: NotificationQuery): Promise<NotificationPage> {
    return JSON.parse(await this.pageText(environmentId, query)) as NotificationPage;
  }

  /**
   * A page of a filtered list, or a deep page of the unfiltered one: planned for its values. Empty without a read of
   * the notifications when the kept counts say that no notification carries a term filter's terms.
   */
  private async otherPage(environmentId: string, query: NotificationQuery): Promise<PageRow[]> {
    const [rareTerms, recipients] = await Promise.all([
      this.rareTerms(environmentId, query),
      this.recipients(environmentId, query),
    ]);
    if (rareTerms === carriedByNone) return [];
    const db = this.db as unknown as Kysely<Tables>;
    return await pageStatement(db, environmentId, query, rareTerms, recipients).execute();
  }

  /**
   * Each row's answer: its kept text with its summaries appended, or, for a row written before migration 012 (until
   * `fillAnswers` reaches it), built the typed way from its columns, read in one more statement.
   */
  private async answers(environmentId: string, rows: PageRow[]): Promise<string[]> {
    const older = rows.filter((row) => row.answer === null);
    const typed = new Map<string, string>();
    if (older.length > 0) {
      const full = (await this.joined()
        .where("n.environment_id", "=", environmentId)
        // By id alone: ids are unique, and `created_at` may hold microseconds the driver's Date has lost.
        .where(
          "n.id",
          "in",
          older.map((row) => row.id),
        )
        .execute()) as JoinedRow[];
      for (const row of full) typed.set(row.id, textOf(row));
    }
    // A row gone between the two statements (its month purged) is left out, as if the page had been read after.
    return rows.flatMap((row) => (row.answer === null ? (typed.get(row.id) ?? []) : [answerText(row.answer, row)]));
  }

  /**
   * The filter terms of the query's rarest term filter, when at most `rareTermLimit` notifications carry them;
   * `carriedByNone` when no notification carries any of them (the counts are kept in the transaction that writes the
   * rows, so a count of 0 is exact: migration 001's triggers, and a bulk load's recount, kept-counts.ts).
   */
  private async rareTerms(
    environmentId: string,
    query: NotificationQuery,
  ): Promise<string[] | typeof carriedByNone | undefined> {
    const groups: string[][] = [];
    const channels = query.channels ?? [];
    const severities = query.severity ?? [];
    if (channels.length && severities.length) {
      groups.push(channels.flatMap((channel) => severities.map((severity) => `cs:${channel}:${severity}`)));
    } else if (channels.length) {
      groups.push(channels.map((channel) => `c:${channel}`));
    }
    if (query.topicKey !== undefined) groups.push([`t:${query.topicKey}`]);
    if (groups.length === 0) return undefined;
    const counts = await this.db
      .selectFrom("notification_term_counts")
      .select(["term", "notifications"])
      .where("environment_id", "=", environmentId)
      .where("term", "in", groups.flat())
      .execute();
    const count = new Map(counts.map((row) => [row.term, Number(row.notifications)]));
    const sized = groups.map((terms) => ({
      terms,
      total: terms.reduce((sum, term) => sum + (count.get(term) ?? 0), 0),
    }));
    const rarest = sized.sort((a, b) => a.total - b.total)[0];
    if (rarest?.total === 0) return carriedByNone;
    return rarest && rarest.total <= this.rareTermLimit ? rarest.terms : undefined;
  }

  /**
   * A notification's answer as JSON text, and when it was created; undefined when there is none. Only what the answer
   * is made of is read (its kept text and its summaries' columns, as a page's rows are): the whole row, `details`
   * and `filter_terms` included, only for a row written before migration 012, which has no kept text yet.
   */
  async answer(environmentId: string, notificationId: string): Promise<NotificationAnswer | undefined> {
    const [row] = await answerById.execute(this.db as unknown as Kysely<Tables>, "", { environmentId, notificationId });
    if (!row) return undefined;
    if (row.answer !== null) return { createdAt: toIso(row.created_at), text: answerText(row.answer, row) };
    const whole = (await this.joined()
      .where("n.environment_id", "=", environmentId)
      .where("n.id", "=", notificationId)
      .modifyEnd(prepared)
      .executeTakeFirst()) as JoinedRow | undefined;
    // Gone between the two statements (its month purged): as if it had been read after.
    return whole && { createdAt: toIso(whole.created_at), text: textOf(whole) };
  }

  /** A notification as an object (what `answer` sends, parsed); undefined when there is none. */
  async get(environmentId: string, notificationId: string): Promise<Notification | undefined> {
    const found = await this.answer(environmentId, notificationId);
    return found && (JSON.parse(found.text) as Notification);
  }

  /** The subscriber filters' SELECTs (their union is whom the notifications must be sent to); none without them. */
  private async recipients(environmentId: string, query: NotificationQuery): Promise<SubscriberSelects> {
    const live: LiveSubscribers = () =>
      (this.db as unknown as Kysely<Tables & { r: Database["subscribers"] }>)
        .selectFrom("subscribers as r")
        .select("r.id")
        .where("r.environment_id", "=", environmentId)
        .where("r.deleted", "=", liveOnly);
    const parts = await Promise.all(
      (Object.keys(subscriberFilterSql) as SubscriberFilterName[]).map((name) => {
        const value = given(query, name);
        return value === undefined ? [] : subscriberFilterSql[name](live, value as never, this.substring);
      }),
    );
    return parts.flat();
  }
}
