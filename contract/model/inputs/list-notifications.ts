/** The inputs of GET /v1/notifications (listNotifications), declared once: see kinds.ts. */
import { operationTable } from "../../../generated/operations.js";
import type { ChannelType, Notification, SeverityLevel, Subscriber } from "../../../generated/schema.js";
import { canonicalDateTime, dateTimeForms } from "../date-time.js";
import { containsIgnoringCase, termVariants } from "../matching.js";
import type { Random } from "../random.js";
import { listWindow } from "../window.js";
import type { ModelData, OperationInputs, RefusalContext, RequestInputs } from "./kinds.js";

const unknownId = "ffffffffffffffffffffffff";
const { maximum: maxLimit = 50, minimum: minLimit = 1 } = operationTable.listNotifications.queryBounds.limit;
const channels: ChannelType[] = ["in_app", "email", "sms", "chat", "push"];
const severities: SeverityLevel[] = ["high", "medium", "low", "none"];

const distinct = <T>(values: T[]) => [...new Set(values)];
/** The subscribers the data's notifications were sent to (a subscriber filter that names them selects something). */
const recipients = (data: ModelData): Subscriber[] => {
  const sent = new Set(data.notifications.map((n) => n._subscriberId));
  return data.subscribers.filter((s) => !s.deleted && sent.has(s._id));
};

/** One value, two, and the first repeated (`channels=sms&channels=sms`): the forms a list parameter takes. */
function lists<T>(values: T[], random: Random): T[][] {
  const [one, two] = random.sample(values, 2);
  if (one === undefined) return [];
  return [[one], ...(two === undefined ? [] : [[one, two]]), [one, one]];
}

/** A date-time bound: the creation times of a few notifications and the millisecond either side of them. */
function bound(meaning: string) {
  return {
    kind: "window" as const,
    meaning,
    cost: "cheap" as const,
    normalise: canonicalDateTime,
    samples: (data: ModelData, random: Random) =>
      random.sample(data.notifications, 2).flatMap((n) => {
        const at = Date.parse(n.createdAt);
        return [n.createdAt, new Date(at - 1).toISOString(), new Date(at + 1).toISOString()];
      }),
    variants: (value: string) => dateTimeForms(canonicalDateTime(value)),
  };
}

export const listNotificationsInputs = {
  query: {
    channels: {
      kind: "filter",
      meaning: "Notifications sent on any of these channels.",
      cost: "cheap",
      matches: (notification: Notification, wanted: ChannelType[]) =>
        notification.channels.some((channel) => wanted.includes(channel)),
      samples: (data: ModelData, random: Random) => [
        ...lists(distinct(data.notifications.flatMap((n) => n.channels)), random),
        random.sample(channels, 1),
      ],
    },
    templates: {
      kind: "filter",
      meaning: "Notifications of any of these workflows (`_templateId`).",
      cost: "cheap",
      matches: (notification: Notification, wanted: string[]) => wanted.includes(notification._templateId ?? ""),
      samples: (data: ModelData, random: Random) => [
        ...lists(distinct(data.notifications.flatMap((n) => (n._templateId ? [n._templateId] : []))), random),
        [unknownId],
      ],
    },
    emails: {
      kind: "subscriber-filter",
      meaning: "Notifications sent to the subscribers with exactly one of these e-mails.",
      cost: "cheap",
      resolves: (subscriber: Subscriber, emails: string[]) =>
        subscriber.email !== null && emails.includes(subscriber.email),
      samples: (data: ModelData, random: Random) => [
        ...lists(distinct(recipients(data).flatMap((s) => (s.email ? [s.email] : []))), random),
        ["nobody@example.com"],
      ],
      variants: (emails: string[]) => [emails.map((email) => email.toUpperCase())],
    },
    search: {
      kind: "subscriber-filter",
      meaning:
        "Notifications sent to the subscribers whose e-mail contains the text (ignoring case) or whose `subscriberId` is it.",
      cost: "expensive",
      resolves: (subscriber: Subscriber, text: string) =>
        containsIgnoringCase(subscriber.email, text) || subscriber.subscriberId === text,
      samples: (data: ModelData, random: Random) => {
        const picked = random.sample(recipients(data), 2);
        return [
          ...picked.flatMap((s) => (s.email ? [random.substring(s.email)] : [])),
          ...picked.map((s) => s.subscriberId),
          "zz-no-match",
        ];
      },
      variants: termVariants,
    },
    subscriberIds: {
      kind: "subscriber-filter",
      meaning: "Notifications sent to the subscribers with these `subscriberId`s.",
      cost: "cheap",
      resolves: (subscriber: Subscriber, ids: string[]) => ids.includes(subscriber.subscriberId),
      samples: (data: ModelData, random: Random) => [
        ...lists(
          recipients(data).map((s) => s.subscriberId),
          random,
        ),
        ["nobody"],
      ],
      variants: (ids: string[]) => [ids.map((id) => id.toUpperCase())],
    },
    severity: {
      kind: "filter",
      meaning: "Notifications of any of these severities; `none` matches notifications without one too.",
      cost: "cheap",
      matches: (notification: Notification, wanted: SeverityLevel[]) =>
        wanted.includes(notification.severity ?? "none"),
      samples: (data: ModelData, random: Random) => [
        ...lists(distinct(data.notifications.map((n) => n.severity ?? "none")), random),
        random.sample(severities, 2),
      ],
    },
    page: {
      kind: "page",
      meaning: "Which page, from 0: it starts at `page × limit`.",
      cost: "deep-offset",
      samples: () => [0, 1, 2],
    },
    limit: {
      kind: "page",
      meaning: "How many notifications a page holds.",
      cost: "cheap",
      samples: () => [minLimit, 2, maxLimit],
    },
    transactionId: {
      kind: "filter",
      meaning: "Notifications of exactly this transaction (case and all).",
      cost: "cheap",
      matches: (notification: Notification, id: string) => notification.transactionId === id,
      samples: (data: ModelData, random: Random) => [
        ...random.sample(data.notifications, 2).map((n) => n.transactionId),
        "no-such-transaction",
      ],
      variants: termVariants,
    },
    topicKey: {
      kind: "filter",
      meaning: "Notifications sent through the topic with exactly this key.",
      cost: "cheap",
      matches: (notification: Notification, key: string) =>
        (notification.topics ?? []).some((topic) => topic.topicKey === key),
      samples: (data: ModelData, random: Random) => [
        ...random.sample(distinct(data.notifications.flatMap((n) => (n.topics ?? []).map((t) => t.topicKey))), 2),
        "no-such-topic",
      ],
      variants: termVariants,
    },
    after: bound("The earliest `createdAt` listed (inclusive); default: the start of the environment's retention."),
    before: bound("The latest `createdAt` listed (inclusive); default: now."),
  },
  path: {},
  body: {},
  refusals: [
    ({ query }: RequestInputs<"listNotifications">, context: RefusalContext) => {
      const window = listWindow(query, context);
      return "status" in window ? window : undefined;
    },
  ],
} satisfies OperationInputs<"listNotifications">;
