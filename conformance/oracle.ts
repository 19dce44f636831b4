/**
 * The oracle: what an implementation holds is read through its own API (a snapshot), and each answer it gives is
 * compared with the contract's model applied to that snapshot. A filter that answers nothing, a cursor one row off
 * or a count that ignores the filter differs from the model, and the failure names the query and the first
 * difference.
 */

import type {
  ApiClient,
  ListNotificationsResponse,
  Notification,
  SearchSubscribersResponse,
  Subscriber,
} from "@novu-query/contract";
import {
  type Answer,
  canonicalJson,
  dateTimeMilliseconds,
  listedNotifications,
  listNotifications,
  type NotificationListQuery,
  type SubscriberSearchQuery,
  searchSubscribers,
} from "@novu-query/contract/model";
import { operationTable } from "@novu-query/contract/operations";

export { Random } from "@novu-query/contract/model";

import { type ConformanceContext, check, RuleFailure } from "./context.js";

/** What the oracle read of one environment. */
export interface Snapshot {
  /** The live subscribers read, newest `_id` first. */
  subscribers: Subscriber[];
  /** False when the environment has more subscribers than `readLimit`: the rows are the newest `_id`s only. */
  subscribersComplete: boolean;
  /** The notifications read, newest first. */
  notifications: Notification[];
  /** False when the environment has more notifications than `readLimit`: then `window` bounds every list query. */
  notificationsComplete: boolean;
  /** The `after` every list query carries when the notifications were read in part (all of them after it were read). */
  window: { after?: string };
}

/** The largest page each list serves: the spec's maximum `limit`, read from the operation table. */
export const largestPage = {
  subscribers: operationTable.searchSubscribers.queryBounds.limit.maximum,
  notifications: operationTable.listNotifications.queryBounds.limit.maximum,
};
const subscriberPage = largestPage.subscribers;
const notificationPage = largestPage.notifications;

/** Reads an environment's subscribers (a cursor walk) and notifications (pages), each up to `readLimit` rows. */
export async function readSnapshot(context: ConformanceContext, client: ApiClient): Promise<Snapshot> {
  const readLimit = context.target.readLimit ?? 2000;
  const subscribers: Subscriber[] = [];
  const seen = new Set<string>();
  /** Keeps a page's rows; fails when one was on an earlier page (a walk that does not advance). */
  const keep = <Row extends { _id: string }>(rows: Row[], into: Row[], request: string) => {
    for (const row of rows) {
      check(!seen.has(row._id), `reading the data: ${request} repeats ${row._id} of an earlier page`);
      seen.add(row._id);
      into.push(row);
    }
  };
  let after: string | null = null;
  do {
    const query: SubscriberSearchQuery = { limit: subscriberPage, ...(after && { after }) };
    const { data, response } = await client.GET("/v2/subscribers", { params: { query } });
    check(
      response.status === 200 && data,
      `reading the subscribers: ${describeSearch(query)} answered ${response.status}`,
    );
    keep(data.data, subscribers, describeSearch(query));
    after = data.next;
  } while (after && subscribers.length < readLimit);
  const notifications: Notification[] = [];
  let page = 0;
  let more = true;
  while (more && notifications.length < readLimit) {
    const query = { limit: notificationPage, page };
    const { data, response } = await client.GET("/v1/notifications", { params: { query } });
    check(
      response.status === 200 && data,
      `reading the notifications: ${describeList(query)} answered ${response.status}`,
    );
    keep(data.data, notifications, describeList(query));
    more = data.hasMore;
    page += 1;
  }
  const snapshot: Snapshot = {
    subscribers,
    subscribersComplete: after === null,
    notifications,
    notificationsComplete: !more,
    window: {},
  };
  if (more) {
    // Every notification created after the oldest instant read was read: keep those, and bound each query by it.
    const oldest = Date.parse((notifications.at(-1) as Notification).createdAt);
    snapshot.notifications = notifications.filter((n) => Date.parse(n.createdAt) > oldest);
    snapshot.window = { after: new Date(oldest + 1).toISOString() };
  }
  return snapshot;
}

/** The snapshot of the target's environment, read once per run (rules that change data put it back). */
export async function snapshotOf(context: ConformanceContext, which: "main" | "other" = "main"): Promise<Snapshot> {
  const name = `snapshot.${which}`;
  const kept = context.memo.get(name) as Snapshot | undefined;
  if (kept) return kept;
  const client = which === "main" ? context.client : context.otherClient;
  if (!client) throw new RuleFailure("no second API key was given");
  const snapshot = await readSnapshot(context, client);
  context.memo.set(name, snapshot);
  return snapshot;
}

/** A seeded pseudo-random source (mulberry32), so that a run's queries can be repeated with `seed`. */
function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

export const describeSearch = (query: SubscriberSearchQuery) => `GET /v2/subscribers${queryString(query)}`;
export const describeList = (query: NotificationListQuery) => `GET /v1/notifications${queryString(query)}`;

const short = (value: unknown) => {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/** The first field in which two rows differ, as `field: expected X, received Y`, or undefined when they are equal. */
function firstFieldDifference(expected: object, received: object): string | undefined {
  const fields = new Set([...Object.keys(expected), ...Object.keys(received)]);
  for (const field of fields) {
    const [e, r] = [(expected as Record<string, unknown>)[field], (received as Record<string, unknown>)[field]];
    if (canonicalJson(e) !== canonicalJson(r)) return `${field}: expected ${short(e)}, received ${short(r)}`;
  }
  return undefined;
}

/** The differences between the page the model expects and the one received, first ones first. */
export function pageDifferences<Row extends { _id: string }>(
  expected: Row[],
  received: Row[],
  compareRows: boolean,
): string[] {
  const differences: string[] = [];
  const [e, r] = [expected.map((row) => row?._id), received.map((row) => row?._id)];
  if (e.length !== r.length || e.some((id, index) => id !== r[index])) {
    const at = e.findIndex((id, index) => id !== r[index]);
    const index = at < 0 ? Math.min(e.length, r.length) : at;
    differences.push(
      `data: expected ${e.length} rows, received ${r.length}; first difference at row ${index}: expected ${
        e[index] ?? "no row"
      }, received ${r[index] ?? "no row"} (expected ids ${short(e.slice(0, 8))}, received ${short(r.slice(0, 8))})`,
    );
  } else if (compareRows) {
    for (const [index, row] of expected.entries()) {
      const difference = firstFieldDifference(row, received[index] as Row);
      if (difference) {
        differences.push(`row ${index} (${row._id}) ${difference}`);
        break;
      }
    }
  }
  return differences;
}

function fieldDifferences(expected: Record<string, unknown>, received: Record<string, unknown>, fields: string[]) {
  return fields
    .filter((field) => JSON.stringify(expected[field]) !== JSON.stringify(received[field]))
    .map((field) => `${field}: expected ${short(expected[field])}, received ${short(received[field])}`);
}

function failWith(request: string, differences: string[]): void {
  if (differences.length > 0) throw new RuleFailure(`${request}: ${differences.join("; ")}`);
}

/** Checks that an answer's status is the model's, and returns the model's body when it is a success. */
function expectStatus<Body>(
  request: string,
  expected: Answer<Body>,
  status: number,
  text: () => string,
): Body | undefined {
  if (expected.status !== status) {
    const model = expected.status === 200 ? "200" : `${expected.status} "${expected.message}"`;
    throw new RuleFailure(`${request}: expected ${model}, received ${status} ${text()}`);
  }
  return expected.status === 200 ? expected.body : undefined;
}

/**
 * Sends a search and compares the answer with the model's over the snapshot: the page's rows whole and in order,
 * `next`, `previous`, `totalCount` and `totalCountCapped`. Over a partial snapshot only what it can tell is compared
 * (the rows that fall inside the window read, in the `_id` order the window was read in).
 */
export async function expectSearch(
  context: ConformanceContext,
  snapshot: Snapshot,
  query: SubscriberSearchQuery,
  client: ApiClient = context.client,
): Promise<SearchSubscribersResponse> {
  const request = describeSearch(query);
  const { data, response, error } = await client.GET("/v2/subscribers", { params: { query } });
  const expected = searchSubscribers(snapshot.subscribers, query);
  const body = expectStatus(request, expected, response.status, () => short(error));
  if (!body || !data) return data as SearchSubscribersResponse;
  if (snapshot.subscribersComplete) {
    failWith(request, [
      ...pageDifferences(body.data, data.data, true),
      ...fieldDifferences(body, data, ["next", "previous", "totalCount", "totalCountCapped"]),
    ]);
  } else {
    // The window holds every subscriber from the newest _id down to the oldest read: of a newest-first page without
    // a cursor, the rows inside it are the model's first matches, all of them unless the page is full of them.
    const oldest = (snapshot.subscribers.at(-1) as Subscriber)._id;
    const inside = data.data.filter((s) => s._id >= oldest);
    const limit = query.limit ?? 10;
    const all = searchSubscribers(snapshot.subscribers, { ...query, limit: snapshot.subscribers.length + 1 });
    const matches = all.status === 200 ? all.body.data : [];
    const wanted = inside.length === limit ? matches.slice(0, limit) : matches;
    failWith(request, pageDifferences(wanted, inside, true));
  }
  return data;
}

/** Sends a list query and compares the answer with the model's over the snapshot: rows whole and in order, `hasMore`, `page`, `pageSize`. */
export async function expectList(
  context: ConformanceContext,
  snapshot: Snapshot,
  query: NotificationListQuery,
  client: ApiClient = context.client,
): Promise<ListNotificationsResponse> {
  const bounded = { ...snapshot.window, ...query };
  const request = describeList(bounded);
  const { data, response, error } = await client.GET("/v1/notifications", { params: { query: bounded } });
  const subscribers = snapshot.subscribers;
  const expected = listNotifications(snapshot.notifications, subscribers, bounded);
  const body = expectStatus(request, expected, response.status, () => short(error));
  if (!body || !data) return data as ListNotificationsResponse;
  failWith(request, [
    ...pageDifferences(body.data, data.data, true),
    ...fieldDifferences(body, data, ["hasMore", "page", "pageSize"]),
  ]);
  return data;
}

/**
 * The same list query at the last page the model fills (the first when its answer fits one page). A bound that drops
 * rows at the end of the list (a lower bound ignored or loosened) changes its last page and its `hasMore`, where the
 * first page is the same whenever a page of newer rows passes the bound. Over a partial snapshot, a query whose own
 * `after` reaches before the window read keeps its first page: the rows past the window are not known.
 */
export function atLastPage(snapshot: Snapshot, query: NotificationListQuery): NotificationListQuery {
  const windowStart = snapshot.window.after;
  if (windowStart !== undefined && query.after !== undefined) {
    const after = dateTimeMilliseconds(query.after);
    if (Number.isNaN(after) || after < Date.parse(windowStart)) return query;
  }
  const listed = listedNotifications(snapshot.notifications, snapshot.subscribers, { ...snapshot.window, ...query });
  if (listed.status !== 200) return query;
  const limit = query.limit ?? operationTable.listNotifications.queryDefaults.limit;
  return { ...query, page: Math.max(0, Math.ceil(listed.body.length / limit) - 1) };
}
