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
import { checkSearch, subscriberFilterSnapshot } from "./input-rules.js";
import { expectList, expectSearch, largestPage, Random, type Snapshot, snapshotOf } from "./oracle.js";

const unknownId = "ffffffffffffffffffffffff";
/** Pages of 13 walked in each order. */
const walkPages = 10;

function random(context: ConformanceContext, rule: string): Random {
  let hash = context.target.seed ?? 1;
  for (const char of rule) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return new Random(hash);
}

const present = (values: (string | null | undefined)[]) => values.filter((v): v is string => !!v);

function need<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new RuleFailure(`the environment needs ${what} for this rule`);
  return value;
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

const orders = ["_id", "createdAt", "updatedAt"].flatMap((orderBy) =>
  (["DESC", "ASC"] as const).map((direction) => [orderBy as "_id" | "createdAt" | "updatedAt", direction] as const),
);

/** What real data holds that trips implementations up, whether this data has it, and what to seed when it does not. */
function edgeCases(snapshot: Snapshot): { name: string; present: boolean; seed: string }[] {
  const { subscribers, notifications } = snapshot;
  const listed = new Set(subscribers.map((s) => s._id));
  const texts = subscribers.flatMap((s) => [s.email, s.firstName, s.lastName, s.phone]).filter((t): t is string => !!t);
  const ties = <Row>(rows: Row[], key: (row: Row) => string) => new Set(rows.map(key)).size < rows.length;
  return [
    {
      name: "a subscriber no search lists that notifications name (deleted)",
      present: notifications.some((n) => !listed.has(n._subscriberId)),
      seed: "a deleted subscriber with a notification",
    },
    {
      name: "names with a part missing",
      present: subscribers.some((s) => s.firstName === null || s.lastName === null),
      seed: "a subscriber without firstName or without lastName",
    },
    {
      name: "subscribers created at one instant",
      present: ties(subscribers, (s) => s.createdAt),
      seed: "two subscribers with one createdAt",
    },
    {
      name: "notifications created at one instant",
      present: ties(notifications, (n) => n.createdAt),
      seed: "two notifications with one createdAt",
    },
    {
      name: "letters beyond ASCII",
      present: texts.some((t) => /[^ -~\s]/.test(t)),
      seed: "a name like Chloé or Müller",
    },
    {
      name: "LIKE metacharacters (% _ \\)",
      present: texts.some((t) => /[%_\\]/.test(t)),
      seed: "an e-mail like a_b@example.com",
    },
    {
      name: "e-mails in mixed case",
      present: subscribers.some((s) => s.email && s.email !== s.email.toLowerCase()),
      seed: "an e-mail like Ada@Example.com",
    },
    {
      name: `more subscribers than the largest page (${largestPage.subscribers})`,
      present: subscribers.length > largestPage.subscribers,
      seed: `over ${largestPage.subscribers} subscribers`,
    },
    {
      name: `more notifications than the largest page (${largestPage.notifications})`,
      present: notifications.length > largestPage.notifications,
      seed: `over ${largestPage.notifications} notifications`,
    },
    {
      name: "notifications without a severity",
      present: notifications.some((n) => (n.severity ?? "none") === "none"),
      seed: "a notification of a workflow without severity",
    },
    {
      name: "notifications sent through a topic",
      present: notifications.some((n) => (n.topics ?? []).length > 0),
      seed: "a notification with topics",
    },
  ];
}

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
      const cases = edgeCases(snapshot);
      const present = cases.filter((edge) => edge.present).map((edge) => edge.name);
      const absent = cases.filter((edge) => !edge.present);
      c.note(`edge cases present: ${present.join("; ") || "none"}`);
      if (absent.length > 0) {
        c.note(
          `edge cases absent, so no rule could send them: ${absent.map((edge) => `${edge.name} (seed ${edge.seed})`).join("; ")}`,
        );
      }
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
  {
    id: "search.filter.combined",
    level: "behaviour",
    text: "Filters are ANDed: email with name, subscriberId with email, as the model says",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const rng = random(c, this.id);
      const [first, second] = rng.sample(
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
      const cursors = rng.sample(snapshot.subscribers, 3);
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

  {
    id: "list.filter.combined",
    level: "behaviour",
    text: "Filters are ANDed, the subscriber filters ORed among themselves, as the model says",
    async run(c) {
      const snapshot = await subscriberFilterSnapshot(c);
      const rng = random(c, this.id);
      // Two subscribers with e-mails, so that emails of one ORed with the subscriberId of the other lists both.
      const withEmail = [
        ...new Map(
          withSubscriber(snapshot)
            .filter((s) => s.email)
            .map((s) => [s._id, s]),
        ).values(),
      ];
      const [first, b] = rng.sample(withEmail, 2);
      const a = need(first, "a notification of a subscriber with an e-mail");
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
      const picked = rng.sample(snapshot.notifications, 3);
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
        ...rng.sample(snapshot.notifications, 5).map((n) => ({ transactionId: n.transactionId })),
      ];
      const sized = filters
        .map((filter) => ({ filter, count: countOf(snapshot, filter) }))
        .filter(({ count }) => count >= 2 && count <= largestPage.notifications);
      for (const { filter, count } of rng.sample(sized, 2)) {
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
      const picked = random(c, this.id).sample(snapshot.notifications, 8);
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
