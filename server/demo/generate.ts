/**
 * Deterministic demo data: the same options always give the same environments, keys, subscribers and notifications.
 * `npm start` loads it into an empty store, and the tests build their fixtures with it. Every reference points at a
 * record that exists; the words are the contract's vocabulary (subscriber-rows.ts and notification-rows.ts make the
 * rows).
 */
import { base, en, Faker } from "@faker-js/faker";
import { vocabulary } from "@novu-query/contract/factories";
import type { NotificationRow, SubscriberRow, WorkflowRow } from "../store/rows.js";
import { type NotificationContext, notificationRow } from "./notification-rows.js";
import { objectId } from "./object-id.js";
import { type DemoOptions, defaultDemoOptions, demoApiKey } from "./options.js";
import { type SubscriberContext, subscriberRow } from "./subscriber-rows.js";

export { notificationWindowDays } from "./notification-rows.js";
export { type DemoOptions, defaultDemoOptions, demoApiKey } from "./options.js";

export interface DemoEnvironment {
  name: string;
  environmentId: string;
  organizationId: string;
  /** A fixed key derived from the seed: demo data is public, so is this key. */
  apiKey: string;
  workflows: WorkflowRow[];
  subscribers: SubscriberRow[];
  notifications: NotificationRow[];
}

const defaultEnvironmentShares = [
  { name: "Production", share: 0.8 },
  { name: "Development", share: 0.2 },
];
const day = 86_400_000;

/** An environment's fixed part: what is known before any subscriber or notification is generated. */
export interface DemoEnvironmentHeader {
  name: string;
  environmentId: string;
  organizationId: string;
  /** A fixed key derived from the seed: demo data is public, so is this key. */
  apiKey: string;
  workflows: WorkflowRow[];
  subscriberCount: number;
  notificationCount: number;
}

/**
 * One environment's data, generated on demand so that a million rows never sit in memory at once.
 * Read `subscribers()` to the end before `notifications()`: notifications pick their subscriber from those generated.
 */
export interface DemoEnvironmentStream extends DemoEnvironmentHeader {
  subscribers(): Generator<SubscriberRow>;
  notifications(): Generator<NotificationRow>;
}

export function demoEnvironments(options: DemoOptions = defaultDemoOptions): DemoEnvironmentStream[] {
  const shares = options.environmentShares ?? defaultEnvironmentShares;
  let subscribersLeft = options.subscribers;
  let notificationsLeft = options.notifications;
  return shares.map(({ name, share }, index) => {
    const last = index === shares.length - 1;
    const subscriberCount = last ? subscribersLeft : Math.round(options.subscribers * share);
    const notificationCount = last ? notificationsLeft : Math.round(options.notifications * share);
    subscribersLeft -= subscriberCount;
    notificationsLeft -= notificationCount;
    return environmentStream(options, index, name, subscriberCount, notificationCount);
  });
}

/** Every environment with all of its rows in arrays: for tests and small data sets. */
export function generateDemoData(options: DemoOptions = defaultDemoOptions): DemoEnvironment[] {
  return demoEnvironments(options).map(
    ({ subscribers, notifications, subscriberCount, notificationCount, ...header }) => {
      const subscriberRows = [...subscribers()];
      return { ...header, subscribers: subscriberRows, notifications: [...notifications()] };
    },
  );
}

/** An environment's ids, integrations, topics and workflows: drawn first, before any row. */
function environmentIds(faker: Faker, anchor: number) {
  const organizationId = objectId(faker, anchor - 800 * day);
  const environmentId = objectId(faker, anchor - 800 * day);
  const integrations = {
    slack: objectId(faker, anchor - 700 * day),
    msteams: objectId(faker, anchor - 700 * day),
    fcm: objectId(faker, anchor - 700 * day),
    apns: objectId(faker, anchor - 700 * day),
  };
  const topicIds = Object.fromEntries(vocabulary.topicKeys.map((key) => [key, objectId(faker, anchor - 600 * day)]));
  const workflows: WorkflowRow[] = vocabulary.workflows.map((workflow) => ({
    ...workflow,
    id: objectId(faker, anchor - 500 * day),
    environment_id: environmentId,
  }));
  return { organizationId, environmentId, integrations, topicIds, workflows };
}

function environmentStream(
  options: DemoOptions,
  index: number,
  name: string,
  subscriberCount: number,
  notificationCount: number,
): DemoEnvironmentStream {
  // Each environment has its own generator, so that its rows do not depend on how far another one was read.
  const faker = new Faker({ locale: [en, base] });
  faker.seed([options.seed, index]);
  const anchor = options.anchor.getTime();
  const { organizationId, environmentId, integrations, topicIds, workflows } = environmentIds(faker, anchor);
  // What notifications need of a subscriber: kept compact, since there may be a million of them.
  const generated: { id: string; subscriberId: string }[] = [];
  const subscriberContext: SubscriberContext = { faker, anchor, environmentId, organizationId, integrations };
  const notificationContext: NotificationContext = {
    faker,
    anchor,
    environmentId,
    organizationId,
    workflows,
    topicIds,
    subscribers: generated,
    digestCarriers: new Map(),
  };

  function* subscribers(): Generator<SubscriberRow> {
    let previousCreated = anchor - 365 * day;
    for (let n = 0; n < subscriberCount; n++) {
      const row = subscriberRow(subscriberContext, n, previousCreated);
      previousCreated = Date.parse(row.created_at);
      generated.push({ id: row.id, subscriberId: row.subscriber_id });
      yield row;
    }
  }

  function* notifications(): Generator<NotificationRow> {
    if (generated.length < subscriberCount) throw new Error("read every subscriber before the notifications");
    let previousCreated = anchor;
    for (let n = 0; n < notificationCount && generated.length > 0; n++) {
      const row = notificationRow(notificationContext, n, previousCreated);
      previousCreated = Date.parse(row.created_at);
      yield row;
    }
  }

  return {
    name,
    environmentId,
    organizationId,
    apiKey: demoApiKey(options.seed, name),
    workflows,
    subscriberCount,
    notificationCount,
    subscribers,
    notifications,
  };
}
