/**
 * Deterministic demo data: the same options always give the same environments, keys, subscribers and notifications.
 * `npm start` loads it into an empty store, and the tests build their fixtures with it.
 * Only enum values the contract declares are used, and every reference points at a record that exists.
 */
import { base, en, Faker } from "@faker-js/faker";
import type {
  ChannelSettings,
  ChannelType,
  DigestMetadata,
  ExecutionDetail,
  Job,
  JobType,
  NotificationTopic,
  ProviderId,
  Step,
  StepFilter,
} from "@novu-query/contract/types";
import type { NotificationRow, SubscriberRow, WorkflowRow } from "../store/rows.js";
import { type DemoOptions, defaultDemoOptions, demoApiKey } from "./options.js";

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

/** Notifications are created within this many days before the anchor. */
export const notificationWindowDays = 180;

const defaultEnvironmentShares = [
  { name: "Production", share: 0.8 },
  { name: "Development", share: 0.2 },
];

const workflowTemplates: Omit<WorkflowRow, "id" | "environment_id">[] = [
  {
    name: "Comment digest",
    identifier: "comment-digest",
    origin: "novu-cloud",
    steps: ["digest", "email"],
    severity: null,
    tags: ["collaboration"],
    variables: ["commentAuthor", "documentTitle"],
  },
  {
    name: "Password changed",
    identifier: "password-changed",
    origin: "novu-cloud",
    steps: ["in_app", "email"],
    severity: "high",
    tags: ["security"],
    variables: [],
  },
  {
    name: "Two-factor code",
    identifier: "two-factor-code",
    origin: "novu-cloud-v1",
    steps: ["sms"],
    severity: "high",
    tags: ["security"],
    variables: ["code"],
  },
  {
    name: "Deploy finished",
    identifier: "deploy-finished",
    origin: "external",
    steps: ["chat", "push"],
    severity: "medium",
    tags: ["engineering"],
    variables: ["service", "version"],
  },
  {
    name: "Invoice ready",
    identifier: "invoice-ready",
    origin: "novu-cloud",
    steps: ["delay", "email", "in_app"],
    severity: "low",
    tags: ["billing"],
    variables: ["amount", "invoiceId"],
  },
  {
    name: "Weekly report",
    identifier: "weekly-report",
    origin: "novu-cloud",
    steps: ["digest", "email"],
    severity: "none",
    tags: ["reports"],
    variables: ["weekOf"],
  },
];

const topicKeys = ["project-apollo", "release-notes", "billing-alerts", "incident-updates", "product-news"];
/**
 * Where subscribers live: a locale, a time zone and a phone number plan that go together (the factories' places).
 * `digits` counts the national number after the country code.
 */
const places = [
  { locale: "en-US", timezone: "America/New_York", countryCode: "1", digits: 10 },
  { locale: "en-US", timezone: "America/Los_Angeles", countryCode: "1", digits: 10 },
  { locale: "en-GB", timezone: "Europe/London", countryCode: "44", digits: 10 },
  { locale: "de-DE", timezone: "Europe/Berlin", countryCode: "49", digits: 11 },
  { locale: "fr-FR", timezone: "Europe/Paris", countryCode: "33", digits: 9 },
  { locale: "es-ES", timezone: "Europe/Madrid", countryCode: "34", digits: 9 },
  { locale: "nl-NL", timezone: "Europe/Amsterdam", countryCode: "31", digits: 9 },
  { locale: "pt-BR", timezone: "America/Sao_Paulo", countryCode: "55", digits: 11 },
  { locale: "ja-JP", timezone: "Asia/Tokyo", countryCode: "81", digits: 10 },
] as const;
/** Addresses only at domains reserved for examples (RFC 2606): demo data names no real mailbox. */
const emailDomains = [
  { value: "example.com", weight: 6 },
  { value: "example.org", weight: 3 },
  { value: "example.net", weight: 1 },
];
const documentTitles = [
  "Q3 roadmap",
  "Launch checklist",
  "Design review notes",
  "Onboarding guide",
  "Pricing page copy",
];
const tenants = ["acme", "globex", "initech", "umbrella"];
const services = ["checkout-api", "search-indexer", "billing-worker", "web-frontend", "notifications-api"];

/** A value a workflow's trigger would really carry for this payload variable. */
function payloadValue(faker: Faker, variable: string, created: number): unknown {
  switch (variable) {
    case "commentAuthor":
      return faker.person.fullName();
    case "documentTitle":
      return faker.helpers.arrayElement(documentTitles);
    case "code":
      return faker.string.numeric({ length: 6 });
    case "service":
      return faker.helpers.arrayElement(services);
    case "version":
      return `${faker.number.int({ min: 1, max: 4 })}.${faker.number.int(30)}.${faker.number.int(12)}`;
    case "amount":
      return faker.number.int({ min: 900, max: 250_000 }) / 100;
    case "invoiceId":
      return `INV-${new Date(created).getUTCFullYear()}-${faker.string.numeric({ length: 5 })}`;
    case "weekOf": {
      // The Monday of the week before the notification.
      const day = new Date(created - 7 * 86_400_000);
      day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
      return day.toISOString().slice(0, 10);
    }
    default:
      return faker.word.noun();
  }
}

const providersByJob: Record<JobType, ProviderId[]> = {
  email: ["sendgrid", "ses", "postmark", "mailgun"],
  sms: ["twilio", "sns", "plivo"],
  in_app: ["novu"],
  chat: ["slack", "msteams", "discord"],
  push: ["fcm", "apns", "expo"],
  digest: ["novu"],
  delay: ["novu"],
  trigger: ["novu"],
  throttle: ["novu"],
  custom: ["novu"],
  tool: ["tool-webhook"],
  http_request: ["novu"],
};
const channelJobs: JobType[] = ["in_app", "email", "sms", "chat", "push"];

/** A 24-hex id whose first 8 characters are the seconds of `at`, like an ObjectId. */
function objectId(faker: Faker, at: Date): string {
  const seconds = Math.floor(at.getTime() / 1000)
    .toString(16)
    .padStart(8, "0");
  return seconds + faker.string.hexadecimal({ length: 16, casing: "lower", prefix: "" });
}

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
  const day = 86_400_000;

  const organizationId = objectId(faker, new Date(anchor - 800 * day));
  const environmentId = objectId(faker, new Date(anchor - 800 * day));
  const integrations = {
    slack: objectId(faker, new Date(anchor - 700 * day)),
    msteams: objectId(faker, new Date(anchor - 700 * day)),
    fcm: objectId(faker, new Date(anchor - 700 * day)),
    apns: objectId(faker, new Date(anchor - 700 * day)),
  };
  const topicIds = Object.fromEntries(topicKeys.map((key) => [key, objectId(faker, new Date(anchor - 600 * day))]));
  const workflows: WorkflowRow[] = workflowTemplates.map((template) => ({
    ...template,
    id: objectId(faker, new Date(anchor - 500 * day)),
    environment_id: environmentId,
  }));
  // What notifications need of a subscriber: kept compact, since there may be a million of them.
  const generated: { id: string; subscriberId: string }[] = [];

  function* subscribers(): Generator<SubscriberRow> {
    let previousCreated = anchor - 365 * day;
    for (let n = 0; n < subscriberCount; n++) {
      // Roughly one in eight subscribers shares its creation time with the one before (a bulk import):
      // pagination must keep ties in a fixed order.
      const created =
        n > 0 && faker.number.int(7) === 0
          ? previousCreated
          : faker.date.between({ from: anchor - 365 * day, to: anchor - day }).getTime();
      previousCreated = created;
      const updated = faker.datatype.boolean(0.6)
        ? created
        : faker.date.between({ from: created, to: anchor }).getTime();
      const firstName = faker.datatype.boolean(0.95) ? faker.person.firstName() : null;
      const lastName = faker.datatype.boolean(0.95) ? faker.person.lastName() : null;
      const place = faker.helpers.arrayElement(places);
      const channels: ChannelSettings[] = [];
      if (faker.datatype.boolean(0.3)) {
        const provider = faker.helpers.arrayElement(["slack", "msteams"] as const);
        channels.push({
          providerId: provider,
          _integrationId: integrations[provider],
          integrationIdentifier: `${provider}-workspace`,
          credentials: {
            webhookUrl: `https://hooks.example.com/${provider}/${faker.string.alphanumeric(12)}`,
            channel: faker.helpers.arrayElement(["#general", "#deploys", "#alerts"]),
          },
        });
      }
      if (faker.datatype.boolean(0.3)) {
        const provider = faker.helpers.arrayElement(["fcm", "apns"] as const);
        channels.push({
          providerId: provider,
          _integrationId: integrations[provider],
          credentials: {
            deviceTokens: Array.from({ length: faker.number.int({ min: 1, max: 3 }) }, () =>
              faker.string.alphanumeric(32),
            ),
          },
        });
      }
      const lastOnline = faker.datatype.boolean(0.7) ? faker.date.between({ from: created, to: anchor }) : null;
      const subscriber: SubscriberRow = {
        id: objectId(faker, new Date(created)),
        environment_id: environmentId,
        organization_id: organizationId,
        subscriber_id: faker.datatype.boolean(0.8) ? `user-${100000 + n}` : faker.string.uuid(),
        first_name: firstName,
        last_name: lastName,
        email: faker.datatype.boolean(0.92)
          ? faker.internet
              .email({
                firstName: firstName ?? "user",
                lastName: lastName ?? String(n),
                provider: faker.helpers.weightedArrayElement(emailDomains),
              })
              .toLowerCase()
          : null,
        phone: faker.datatype.boolean(0.7)
          ? `+${place.countryCode}${faker.string.numeric({ length: place.digits, allowLeadingZeros: false })}`
          : null,
        avatar: faker.datatype.boolean(0.5)
          ? `https://cdn.example.com/avatars/${faker.string.alphanumeric(10)}.png`
          : null,
        locale: faker.datatype.boolean(0.9) ? place.locale : null,
        timezone: faker.datatype.boolean(0.85) ? place.timezone : null,
        channels,
        topics: faker.helpers.arrayElements(topicKeys, { min: 0, max: 3 }),
        is_online: lastOnline ? faker.datatype.boolean(0.2) : null,
        last_online_at: lastOnline?.toISOString() ?? null,
        version: updated === created ? 0 : faker.number.int({ min: 1, max: 6 }),
        data: faker.datatype.boolean(0.6)
          ? {
              plan: faker.helpers.arrayElement(["free", "team", "enterprise"]),
              seats: faker.number.int({ min: 1, max: 500 }),
            }
          : null,
        deleted: faker.datatype.boolean(0.02),
        created_at: new Date(created).toISOString(),
        updated_at: new Date(updated).toISOString(),
      };
      generated.push({ id: subscriber.id, subscriberId: subscriber.subscriber_id });
      yield subscriber;
    }
  }

  function* notifications(): Generator<NotificationRow> {
    if (generated.length < subscriberCount) throw new Error("read every subscriber before the notifications");
    // The first notification of each (subscriber, workflow): later digest notifications may be folded into it.
    const digestCarriers = new Map<string, string>();
    let previousNotification = anchor;
    for (let n = 0; n < notificationCount && generated.length > 0; n++) {
      const subscriber = faker.helpers.arrayElement(generated);
      const workflow = faker.helpers.arrayElement(workflows);
      // About one in ten notifications shares its creation time with the one before (one trigger, many jobs).
      const created =
        n > 0 && faker.number.int(9) === 0
          ? previousNotification
          : faker.date.between({ from: anchor - notificationWindowDays * day, to: anchor - 60_000 }).getTime();
      previousNotification = created;
      const id = objectId(faker, new Date(created));
      const topics: NotificationTopic[] = faker.datatype.boolean(0.25)
        ? faker.helpers
            .arrayElements(topicKeys, { min: 1, max: 2 })
            .map((key) => ({ _topicId: topicIds[key] as string, topicKey: key }))
        : [];
      const payload = Object.fromEntries(
        workflow.variables.map((variable) => [variable, payloadValue(faker, variable, created)]),
      );
      const jobs = workflow.steps.map((type, position) =>
        generateJob(faker, { type, position, created, workflow, payload }),
      );
      const updated = Math.max(created, ...jobs.map((job) => Date.parse(job.updatedAt ?? "")).filter(Number.isFinite));
      const channels = workflow.steps.filter((step): step is ChannelType => channelJobs.includes(step));
      const pair = `${subscriber.id}:${workflow.id}`;
      const carrier = digestCarriers.get(pair);
      if (carrier === undefined) digestCarriers.set(pair, id);
      yield {
        id,
        environment_id: environmentId,
        organization_id: organizationId,
        subscriber_id: subscriber.id,
        transaction_id: `txn-${faker.string.hexadecimal({ length: 12, casing: "lower", prefix: "" })}`,
        template_id: workflow.id,
        // Some digest notifications were folded into an earlier one of the same subscriber and workflow.
        digested_notification_id:
          carrier !== undefined && channels.length && faker.datatype.boolean(0.03) ? carrier : null,
        channels,
        // Severity belongs to the workflow, as in Novu: some severity and channel pairs never occur.
        severity: workflow.severity,
        topic_keys: topics.map((topic) => topic.topicKey),
        created_at: new Date(created).toISOString(),
        updated_at: new Date(updated).toISOString(),
        details: {
          jobs,
          payload,
          tags: workflow.tags,
          controls: {},
          to: { subscriberId: subscriber.subscriberId },
          topics,
          critical: faker.datatype.boolean(0.1),
          contextKeys: faker.datatype.boolean(0.2) ? [`tenant:${faker.helpers.arrayElement(tenants)}`] : [],
        },
      };
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

interface JobContext {
  type: JobType;
  position: number;
  created: number;
  workflow: WorkflowRow;
  payload: Record<string, unknown>;
}

function generateJob(faker: Faker, { type, position, created, workflow, payload }: JobContext): Job {
  const providerId = faker.helpers.arrayElement(providersByJob[type]);
  const failed = channelJobs.includes(type) && faker.datatype.boolean(0.08);
  const started = created + position * 1000 + faker.number.int(800);
  const details: ExecutionDetail[] = [
    {
      _id: objectId(faker, new Date(started)),
      createdAt: new Date(started).toISOString(),
      status: "Pending",
      detail: "Step queued",
      isRetry: false,
      isTest: false,
      source: "Internal",
      raw: null,
    },
  ];
  const finished = started + faker.number.int({ min: 50, max: 4000 });
  if (failed) {
    details.push({
      _id: objectId(faker, new Date(finished)),
      createdAt: new Date(finished).toISOString(),
      status: "Failed",
      detail: "Provider rejected the message",
      isRetry: faker.datatype.boolean(0.3),
      isTest: false,
      providerId,
      raw: JSON.stringify({ statusCode: 400, message: "invalid recipient" }),
      source: "Credentials",
    });
  } else {
    details.push({
      _id: objectId(faker, new Date(finished)),
      createdAt: new Date(finished).toISOString(),
      status: "Success",
      detail: channelJobs.includes(type) ? "Message sent" : "Step completed",
      isRetry: false,
      isTest: false,
      providerId,
      source: channelJobs.includes(type) ? "Credentials" : "Internal",
    });
  }
  const job: Job = {
    _id: objectId(faker, new Date(started)),
    type,
    providerId,
    status: failed ? "failed" : "completed",
    updatedAt: new Date(finished).toISOString(),
    payload,
    overrides: { workflowId: workflow.identifier, stepId: `${type.replace("_", "-")}-step` },
    executionDetails: details,
    step: generateStep(faker, type, workflow, started),
  };
  if (type === "digest") {
    job.digest = generateDigest(faker);
    job.scheduleExtensionsCount = faker.number.int(3);
  }
  if (type === "delay") job.scheduleExtensionsCount = 0;
  return job;
}

function generateDigest(faker: Faker): DigestMetadata {
  const type = faker.helpers.arrayElement(["regular", "backoff", "timed"] as const);
  const digest: DigestMetadata = {
    type,
    digestKey: faker.helpers.arrayElement(["documentTitle", "projectId"]),
    amount: faker.helpers.arrayElement([5, 10, 30]),
    unit: faker.helpers.arrayElement(["minutes", "hours"] as const),
    events: Array.from({ length: faker.number.int({ min: 1, max: 4 }) }, () => ({
      commentAuthor: faker.person.fullName(),
    })),
    updateMode: false,
  };
  if (type === "backoff") Object.assign(digest, { backoff: true, backoffAmount: 5, backoffUnit: "minutes" });
  if (type === "timed") {
    digest.timed = faker.datatype.boolean()
      ? {
          atTime: "09:00",
          weekDays: faker.helpers.arrayElements(["monday", "wednesday", "friday"] as const, { min: 1, max: 3 }),
        }
      : {
          atTime: "08:30",
          monthlyType: "on",
          ordinal: faker.helpers.arrayElement(["1", "2", "last"] as const),
          ordinalValue: "weekday",
        };
  }
  return digest;
}

function generateFilter(faker: Faker): StepFilter {
  return {
    isNegated: faker.datatype.boolean(0.1),
    type: faker.helpers.arrayElement(["BOOLEAN", "STATEMENT", "TEXT"] as const),
    value: faker.helpers.arrayElement(["AND", "OR"] as const),
    children: [
      {
        field: faker.helpers.arrayElement(["email", "locale", "isOnline"]),
        value: faker.helpers.arrayElement(["", "de", "true"]),
        operator: faker.helpers.arrayElement(["EQUAL", "NOT_EQUAL", "LIKE"] as const),
        on: "subscriber",
      },
    ],
  };
}

function generateStep(faker: Faker, type: JobType, workflow: WorkflowRow, at: number): Step {
  const step: Step = {
    _id: objectId(faker, new Date(at - 400 * 86_400_000)),
    active: true,
    name: `${workflow.identifier}-${type.replace("_", "-")}`,
    filters: faker.datatype.boolean(0.3) ? [generateFilter(faker)] : [],
    _templateId: objectId(faker, new Date(at - 400 * 86_400_000)),
    _parentId: null,
    variants: [],
  };
  if (type === "email" && faker.datatype.boolean(0.2)) {
    step.variants = [
      {
        _id: objectId(faker, new Date(at - 300 * 86_400_000)),
        active: true,
        name: `${step.name}-variant`,
        filters: [generateFilter(faker)],
        _templateId: objectId(faker, new Date(at - 300 * 86_400_000)),
        variants: [],
      },
    ];
  }
  return step;
}
