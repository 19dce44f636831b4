/**
 * The rules that compare answers with the contract's model over the implementation's own data (oracle.ts): each
 * filter and their combinations, both orders of each `orderBy` with cursors both ways, `includeCursor`, counts,
 * pages, dates and retention, whole rows, the isolation of two environments and a PATCH read back.
 */
import type { ChannelType, Notification, SeverityLevel, Subscriber } from "@novu-query/contract";
import {
  listNotifications,
  messages,
  type NotificationListQuery,
  type SubscriberSearchQuery,
  searchedName,
  searchSubscribers,
} from "@novu-query/contract/model";
import { type ConformanceContext, check, checkEqual, type Rule, RuleFailure } from "./context.js";
import { expectList, expectSearch, largestPage, Random, type Snapshot, snapshotOf } from "./oracle.js";

const unknownId = "ffffffffffffffffffffffff";
/** Pages of 13 walked in each order. */
const walkPages = 10;

function random(context: ConformanceContext, rule: string): Random {
  let hash = context.target.seed ?? 1;
  for (const char of rule) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return new Random(hash);
}

/** Up to `count` distinct items, picked at random. */
function sample<T>(rng: Random, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0) picked.push(pool.splice(rng.int(pool.length), 1)[0] as T);
  return picked;
}

function need<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new RuleFailure(`the environment needs ${what} for this rule`);
  return value;
}

/** Checks a search at the default limit, and, over a complete snapshot, at limit 3 following `next` and `previous`. */
async function checkSearch(context: ConformanceContext, snapshot: Snapshot, query: SubscriberSearchQuery) {
  await expectSearch(context, snapshot, query);
  if (!snapshot.subscribersComplete) return;
  const first = await expectSearch(context, snapshot, { ...query, limit: 3 });
  if (!first.next) return;
  const second = await expectSearch(context, snapshot, { ...query, limit: 3, after: first.next });
  if (second.previous) await expectSearch(context, snapshot, { ...query, limit: 3, before: second.previous });
}

function searchFilterRule(
  field: "email" | "phone" | "name" | "subscriberId",
  text: string,
  terms: (rng: Random, subscribers: Subscriber[]) => string[],
): Rule {
  return {
    id: `search.filter.${field}`,
    level: "behaviour",
    text,
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const values = terms(rng, snapshot.subscribers);
      need(values[0], `a subscriber with a ${field}`);
      for (const term of [...values, `zz-no-match-${rng.int(1e6)}`]) await checkSearch(c, snapshot, { [field]: term });
    },
  };
}

const present = (values: (string | null | undefined)[]) => values.filter((v): v is string => !!v);

function listFilterRule(
  id: string,
  text: string,
  queries: (rng: Random, snapshot: Snapshot) => NotificationListQuery[],
  needs: string,
): Rule {
  return {
    id: `list.filter.${id}`,
    level: "behaviour",
    text,
    async run(c) {
      const snapshot = await snapshotOf(c);
      const generated = queries(random(c, this.id), snapshot);
      need(generated[0], needs);
      for (const query of generated) {
        await expectList(c, snapshot, query);
        await expectList(c, snapshot, { ...query, limit: 2, page: 1 });
      }
    },
  };
}

/** How many notifications of the snapshot the model lists for a filter. */
function countOf(snapshot: Snapshot, filter: NotificationListQuery): number {
  const all = listNotifications(snapshot.notifications, snapshot.subscribers, {
    ...snapshot.window,
    ...filter,
    limit: snapshot.notifications.length + 1,
  });
  return all.status === 200 ? all.body.data.length : 0;
}

const channelsOf = (snapshot: Snapshot) => [...new Set(snapshot.notifications.flatMap((n) => n.channels))];
const withSubscriber = (snapshot: Snapshot) =>
  snapshot.notifications.map((n) => n.subscriber).filter((s): s is NonNullable<Notification["subscriber"]> => !!s);

/** Subscriber filters of the list need every live subscriber to compute: over a partial snapshot they are not run. */
async function subscriberFilterSnapshot(context: ConformanceContext): Promise<Snapshot> {
  const snapshot = await snapshotOf(context);
  if (!snapshot.subscribersComplete) {
    throw new RuleFailure(
      `not checked: the environment has more than ${snapshot.subscribers.length} subscribers (raise readLimit)`,
    );
  }
  return snapshot;
}

const orders = ["_id", "createdAt", "updatedAt"].flatMap((orderBy) =>
  (["DESC", "ASC"] as const).map((direction) => [orderBy as "_id" | "createdAt" | "updatedAt", direction] as const),
);

export const oracleRules: Rule[] = [
  {
    id: "oracle.read",
    level: "behaviour",
    text: "The environment's subscribers (a cursor walk) and notifications (pages) can be read whole, for the rules below",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const parts = [
        `${snapshot.subscribers.length} subscribers${snapshot.subscribersComplete ? "" : " (a window: there are more)"}`,
        `${snapshot.notifications.length} notifications${
          snapshot.notificationsComplete ? "" : ` (a window: those created after ${snapshot.window.after})`
        }`,
      ];
      c.note(`read ${parts.join(" and ")}`);
      need(snapshot.subscribers[0], "subscribers");
      need(snapshot.notifications[0], "notifications");
    },
  },
  ...orders.map(
    ([orderBy, orderDirection]): Rule => ({
      id: `search.order.${orderBy}.${orderDirection}`,
      level: "behaviour",
      text: `In (${orderBy}, _id) ${orderDirection} order, each page following next, and each page before previous, is the model's: rows, next, previous, totalCount`,
      async run(c) {
        const snapshot = await snapshotOf(c);
        const query: SubscriberSearchQuery = { limit: 13, orderBy, orderDirection };
        if (!snapshot.subscribersComplete) {
          if (orderBy === "_id" && orderDirection === "DESC") await expectSearch(c, snapshot, query);
          return;
        }
        let page = await expectSearch(c, snapshot, query);
        const previous: string[] = [];
        // At most `walkPages` pages: a large environment's walk stays a few dozen requests (search.cursor.edges
        // checks the far end).
        for (let walked = 1; page.next && walked < walkPages; walked++) {
          page = await expectSearch(c, snapshot, { ...query, after: page.next });
          if (page.previous) previous.push(page.previous);
        }
        for (const before of previous.reverse().slice(0, 4)) await expectSearch(c, snapshot, { ...query, before });
      },
    }),
  ),
  searchFilterRule("email", "email matches a case-insensitive substring, as the model says", (rng, subscribers) =>
    sample(rng, present(subscribers.map((s) => s.email)), 4).map((email, i) =>
      i === 0 ? email.toUpperCase() : rng.substring(email),
    ),
  ),
  searchFilterRule("phone", "phone matches a case-insensitive substring, as the model says", (rng, subscribers) =>
    sample(rng, present(subscribers.map((s) => s.phone)), 4).map((phone) => rng.substring(phone)),
  ),
  searchFilterRule(
    "name",
    "name matches a case-insensitive substring of firstName, a space, lastName, as the model says",
    (rng, subscribers) => {
      const named = subscribers.filter((s) => s.firstName && s.lastName);
      return sample(rng, named, 4).map((s, i) =>
        i === 0 ? `${s.firstName?.slice(-2)} ${s.lastName?.slice(0, 2)}` : rng.substring(searchedName(s)),
      );
    },
  ),
  searchFilterRule("subscriberId", "subscriberId matches exactly, case included", (rng, subscribers) => {
    const ids = sample(rng, subscribers, 3).map((s) => s.subscriberId);
    const cased = ids.find((id) => id.toUpperCase() !== id);
    return cased ? [...ids, cased.toUpperCase()] : ids;
  }),
  {
    id: "search.filter.combined",
    level: "behaviour",
    text: "Filters are ANDed: email with name, subscriberId with email, as the model says",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const [first, second] = sample(
        rng,
        snapshot.subscribers.filter((s) => s.email && s.firstName),
        2,
      );
      const a = need(first, "a subscriber with an email and a first name");
      const other = second ?? a;
      for (const query of [
        { email: rng.substring(a.email ?? ""), name: rng.substring(searchedName(a)) },
        { email: rng.substring(a.email ?? ""), name: rng.substring(searchedName(other)) },
        { subscriberId: a.subscriberId, email: rng.substring(other.email ?? "") },
        { subscriberId: a.subscriberId, email: a.email ?? "" },
      ])
        await checkSearch(c, snapshot, query);
    },
  },
  {
    id: "search.filter.literal",
    level: "behaviour",
    text: "Filter input is matched literally: % and _ are ordinary characters, as the model says",
    async run(c) {
      const snapshot = await snapshotOf(c);
      for (const term of ["%", "_", "%%", "a%", "_a"]) {
        await expectSearch(c, snapshot, { email: term });
        await expectSearch(c, snapshot, { name: term });
      }
    },
  },
  {
    id: "search.cursor.include",
    level: "behaviour",
    text: "includeCursor=true includes the cursor row itself at the edge of the page, after and before, as the model says",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const cursors = sample(rng, snapshot.subscribers, 3);
      need(cursors[0], "a subscriber");
      for (const cursor of cursors) {
        for (const [orderBy, orderDirection] of [
          ["_id", "ASC"],
          ["createdAt", "DESC"],
        ] as const) {
          const query = { limit: 3, orderBy, orderDirection, includeCursor: true };
          await expectSearch(c, snapshot, { ...query, after: cursor._id });
          await expectSearch(c, snapshot, { ...query, before: cursor._id });
          // A cursor row that the filter leaves out is not included.
          await expectSearch(c, snapshot, { ...query, after: cursor._id, email: "zz-no-match" });
        }
      }
    },
  },
  {
    id: "search.cursor.unknown",
    level: "behaviour",
    text: "A well-formed cursor that names no subscriber of the environment gives an empty page with the full count",
    async run(c) {
      const snapshot = await snapshotOf(c);
      await expectSearch(c, snapshot, { after: unknownId });
      await expectSearch(c, snapshot, { before: unknownId, orderBy: "createdAt" });
    },
  },
  {
    id: "search.cursor.edges",
    level: "behaviour",
    text: "after the last row of an order, and before its first, is an empty page with next and previous null",
    async run(c) {
      const snapshot = await snapshotOf(c);
      if (!snapshot.subscribersComplete) return;
      for (const [orderBy, orderDirection] of orders) {
        const all = searchSubscribers(snapshot.subscribers, {
          orderBy,
          orderDirection,
          limit: largestPage.subscribers,
        });
        const rows = all.status === 200 ? all.body.data : [];
        const first = need(rows[0], "a subscriber");
        const last = rows.at(-1) as Subscriber;
        await expectSearch(c, snapshot, { orderBy, orderDirection, limit: 3, after: last._id });
        await expectSearch(c, snapshot, { orderBy, orderDirection, limit: 3, before: first._id });
        await expectSearch(c, snapshot, { orderBy, orderDirection, limit: 3, before: first._id, includeCursor: true });
        // A cursor past every row the filter keeps: the page before it is the filter's last rows.
        const term = first.email ?? undefined;
        if (term && !(last.email ?? "").toLowerCase().includes(term.toLowerCase())) {
          await expectSearch(c, snapshot, { orderBy, orderDirection, limit: 3, before: last._id, email: term });
        }
      }
    },
  },
  {
    id: "search.count",
    level: "behaviour",
    text: "totalCount counts every match whatever the cursor and the limit, as the model says (capped at 50,000)",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const someone = need(rng.pick(snapshot.subscribers.filter((s) => s.email)), "a subscriber with an email");
      const term = rng.substring(someone.email ?? "");
      for (const query of [{}, { limit: 1 }, { email: term, limit: 1 }, { limit: 2, after: someone._id }]) {
        await expectSearch(c, snapshot, query);
      }
    },
  },

  listFilterRule(
    "channels",
    "channels matches notifications with any of the channels given, as the model says",
    (rng, snapshot) => {
      const channels = channelsOf(snapshot);
      return [
        ...channels.map((channel) => ({ channels: [channel] })),
        ...(channels.length > 1 ? [{ channels: sample(rng, channels, 2) }] : []),
      ];
    },
    "a notification with a channel",
  ),
  listFilterRule(
    "severity",
    "severity matches notifications with any of the severities given (none: without one), as the model says",
    (rng, snapshot) =>
      snapshot.notifications.length === 0
        ? []
        : [
            ...(["high", "medium", "low", "none"] as SeverityLevel[]).map((level) => ({ severity: [level] })),
            { severity: sample(rng, ["high", "medium", "low", "none"] as SeverityLevel[], 2) },
          ],
    "a notification",
  ),
  listFilterRule(
    "templates",
    "templates matches notifications of any of the workflows given, as the model says",
    (rng, snapshot) => {
      const templates = [...new Set(present(snapshot.notifications.map((n) => n._templateId)))];
      return templates.length === 0
        ? []
        : [
            { templates: sample(rng, templates, 1) },
            { templates: sample(rng, templates, 2) },
            { templates: [unknownId] },
          ];
    },
    "a notification of a workflow",
  ),
  listFilterRule(
    "transactionId",
    "transactionId matches exactly, as the model says",
    (rng, snapshot) => [
      ...sample(rng, snapshot.notifications, 2).map((n) => ({ transactionId: n.transactionId })),
      ...(snapshot.notifications.length ? [{ transactionId: `no-such-transaction-${rng.int(1e6)}` }] : []),
    ],
    "a notification",
  ),
  listFilterRule(
    "topicKey",
    "topicKey matches notifications sent through the topic with exactly that key, as the model says",
    (rng, snapshot) => {
      const keys = [...new Set(snapshot.notifications.flatMap((n) => (n.topics ?? []).map((t) => t.topicKey)))];
      return keys.length === 0
        ? []
        : [...sample(rng, keys, 2).map((topicKey) => ({ topicKey })), { topicKey: "no-such-topic" }];
    },
    "a notification sent through a topic",
  ),
  {
    id: "list.filter.emails",
    level: "behaviour",
    text: "emails matches notifications of subscribers with exactly one of the emails, as the model says",
    async run(c) {
      const snapshot = await subscriberFilterSnapshot(c);
      const rng = random(c, this.id);
      const emails = [...new Set(present(withSubscriber(snapshot).map((s) => s.email)))];
      const [picked, two] = sample(rng, emails, 2);
      const one = need(picked, "a notification of a subscriber with an email");
      for (const query of [{ emails: [one] }, { emails: [one, two ?? one] }, { emails: [one.toUpperCase()] }]) {
        await expectList(c, snapshot, query);
      }
    },
  },
  {
    id: "list.filter.subscriberIds",
    level: "behaviour",
    text: "subscriberIds matches notifications of any of the subscribers, as the model says",
    async run(c) {
      const snapshot = await subscriberFilterSnapshot(c);
      const rng = random(c, this.id);
      const ids = [...new Set(withSubscriber(snapshot).map((s) => s.subscriberId))];
      const [picked, two] = sample(rng, ids, 2);
      const one = need(picked, "a notification of a subscriber");
      for (const query of [
        { subscriberIds: [one] },
        { subscriberIds: [one, two ?? one] },
        { subscriberIds: ["nobody"] },
      ]) {
        await expectList(c, snapshot, query);
        await expectList(c, snapshot, { ...query, limit: 2, page: 1 });
      }
    },
  },
  {
    id: "list.filter.search",
    level: "behaviour",
    text: "search matches notifications of subscribers whose email contains it (ignoring case) or whose subscriberId is it",
    async run(c) {
      const snapshot = await subscriberFilterSnapshot(c);
      const rng = random(c, this.id);
      const subscriber = need(
        rng.pick(withSubscriber(snapshot).filter((s) => s.email)),
        "a notification of a subscriber with an email",
      );
      for (const search of [rng.substring(subscriber.email ?? ""), subscriber.subscriberId, "zz-no-match"]) {
        await expectList(c, snapshot, { search });
      }
    },
  },
  {
    id: "list.filter.combined",
    level: "behaviour",
    text: "Filters are ANDed, the subscriber filters ORed among themselves, as the model says",
    async run(c) {
      const snapshot = await subscriberFilterSnapshot(c);
      const rng = random(c, this.id);
      const [first, b] = sample(rng, withSubscriber(snapshot), 2);
      const a = need(first, "a notification of a subscriber");
      const channel = rng.pick(channelsOf(snapshot)) as ChannelType;
      const queries: NotificationListQuery[] = [
        { emails: present([a.email ?? b?.email]), subscriberIds: [(b ?? a).subscriberId] },
        { channels: [channel], severity: ["high", "none"] },
        { channels: [channel], subscriberIds: [a.subscriberId] },
        { subscriberIds: [a.subscriberId], search: (b ?? a).subscriberId, severity: ["medium", "low", "high"] },
      ];
      for (const query of queries) await expectList(c, snapshot, query);
    },
  },
  {
    id: "list.dates.inclusive",
    level: "behaviour",
    text: "after and before are inclusive bounds on createdAt, as the model says",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const picked = sample(rng, snapshot.notifications, 3);
      need(picked[0], "a notification");
      for (const notification of picked) {
        const at = Date.parse(notification.createdAt);
        const iso = (ms: number) => new Date(ms).toISOString();
        await expectList(c, snapshot, { after: iso(at), before: iso(at) });
        await expectList(c, snapshot, { after: iso(at + 1) });
        await expectList(c, snapshot, { before: iso(at - 1) });
        const hour = { after: iso(at - 3_600_000), before: iso(at + 3_600_000) };
        await expectList(c, snapshot, { ...hour, limit: largestPage.notifications });
      }
    },
  },
  {
    id: "list.pages",
    level: "behaviour",
    text: "page and limit give the model's slice of the newest-first order for several page sizes, with hasMore exact",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const channel = rng.pick(channelsOf(snapshot));
      for (const [limit, filter] of [
        [largestPage.notifications, {}],
        [7, {}],
        [1, {}],
        [3, channel ? { channels: [channel] } : {}],
      ] as const) {
        let page = 0;
        let more = true;
        while (more && page < 12) {
          more = (await expectList(c, snapshot, { ...filter, limit, page })).hasMore;
          page += 1;
        }
        if (!more) await expectList(c, snapshot, { ...filter, limit, page });
      }
      await expectList(c, snapshot, {});
      // A last page that is exactly full: hasMore must still be false.
      const filters: NotificationListQuery[] = [
        ...channelsOf(snapshot).map((channel) => ({ channels: [channel] })),
        ...(["high", "medium", "low", "none"] as SeverityLevel[]).map((level) => ({ severity: [level] })),
        ...sample(rng, snapshot.notifications, 5).map((n) => ({ transactionId: n.transactionId })),
      ];
      const sized = filters
        .map((filter) => ({ filter, count: countOf(snapshot, filter) }))
        .filter(({ count }) => count >= 2 && count <= largestPage.notifications);
      for (const { filter, count } of sample(rng, sized, 2)) {
        await expectList(c, snapshot, { ...filter, limit: count });
        if (count % 2 === 0) await expectList(c, snapshot, { ...filter, limit: count / 2, page: 1 });
      }
    },
  },
  {
    id: "list.retention",
    level: "behaviour",
    text: "An after before the retention window is 402 naming its first day, and that day itself is accepted (unlimited: 200)",
    async run(c) {
      const response = await c.raw("/v1/notifications?after=1970-01-01T00:00:00.000Z&limit=1");
      if (response.status === 200) {
        // Unlimited: the whole history is what the list shows without after.
        await response.arrayBuffer();
        const snapshot = await snapshotOf(c);
        if (snapshot.notificationsComplete) {
          // The page where the default list ends: nothing older may follow it.
          const limit = largestPage.notifications;
          const page = Math.floor(snapshot.notifications.length / limit);
          await expectList(c, snapshot, { after: "1970-01-01T00:00:00.000Z", limit, page });
        }
        return;
      }
      const body = await c.expectError(response, 402);
      const day = /(\d{4}-\d{2}-\d{2})\.$/.exec(body.message)?.[1];
      check(day, `the 402 message does not end with the first day: ${body.message}`);
      checkEqual(body.message, messages.retentionExceeded(day), "the 402 message");
      const first = await c.raw(`/v1/notifications?after=${day}T00:00:00.000Z&limit=1`);
      check(first.status === 200, `after=${day}T00:00:00.000Z (the first day) answered ${first.status}`);
      await first.arrayBuffer();
      const earlier = new Date(Date.parse(`${day}T00:00:00.000Z`) - 1).toISOString();
      await c.expectError(await c.raw(`/v1/notifications?after=${earlier}&limit=1`), 402);
      // Without after, the list starts at the window: nothing older is listed.
      const oldest = (await snapshotOf(c)).notifications.at(-1);
      check(
        !oldest || oldest.createdAt >= `${day}T00:00:00.000Z`,
        `the list without after shows ${oldest?._id} of ${oldest?.createdAt}, before the retention window's first day ${day}`,
      );
    },
  },
  {
    id: "get.whole",
    level: "behaviour",
    text: "A listed notification is returned whole by get, equal to its list entry",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const picked = sample(random(c, this.id), snapshot.notifications, 8);
      need(picked[0], "a notification");
      for (const listed of picked) {
        const { data, response } = await c.client.GET("/v1/notifications/{notificationId}", {
          params: { path: { notificationId: listed._id } },
        });
        check(response.status === 200, `GET /v1/notifications/${listed._id} answered ${response.status}`);
        checkEqual(data, listed, `GET /v1/notifications/${listed._id}`);
      }
    },
  },
];
