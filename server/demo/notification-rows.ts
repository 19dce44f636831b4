/**
 * The demo's notifications, one row at a time: each to one of the environment's subscribers, of one of its workflows,
 * over the last `notificationWindowDays` days (one in ten at the same instant as the one before: one trigger, many
 * jobs), with the jobs, execution details, steps and payload the workflow's steps make.
 */
import type { Faker } from "@faker-js/faker";
import { vocabulary } from "@novu-query/contract/factories";
import type {
  ChannelType,
  DigestMetadata,
  ExecutionDetail,
  Job,
  JobType,
  NotificationTopic,
  Step,
  StepFilter,
} from "@novu-query/contract/types";
import type { NotificationRow, WorkflowRow } from "../store/rows.js";
import { objectId, randomHex } from "./object-id.js";

/** Notifications are created within this many days before the anchor. */
export const notificationWindowDays = 180;

const day = 86_400_000;
const channelJobs = vocabulary.channelTypes as readonly JobType[];
const { documentTitles, services, tenants } = vocabulary;

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

/** What every notification of an environment shares. */
export interface NotificationContext {
  faker: Faker;
  anchor: number;
  environmentId: string;
  organizationId: string;
  workflows: WorkflowRow[];
  topicIds: Record<string, string>;
  /** The environment's subscribers, as much as a notification needs of them. */
  subscribers: readonly { id: string; subscriberId: string }[];
  /** The first notification of each (subscriber, workflow): a later digest notification may be folded into it. */
  digestCarriers: Map<string, string>;
}

/** The topics one in four notifications was sent through. */
function topicsOf({ faker, topicIds }: NotificationContext): NotificationTopic[] {
  if (!faker.datatype.boolean(0.25)) return [];
  return faker.helpers
    .arrayElements(vocabulary.topicKeys, { min: 1, max: 2 })
    .map((key) => ({ _topicId: topicIds[key] as string, topicKey: key }));
}

/** The n-th notification of an environment (`previousCreated`: the creation time of the one before). */
export function notificationRow(context: NotificationContext, n: number, previousCreated: number): NotificationRow {
  const { faker, anchor, environmentId, organizationId, digestCarriers } = context;
  const subscriber = faker.helpers.arrayElement(context.subscribers);
  const workflow = faker.helpers.arrayElement(context.workflows);
  const created =
    n > 0 && faker.number.int(9) === 0
      ? previousCreated
      : faker.date.between({ from: anchor - notificationWindowDays * day, to: anchor - 60_000 }).getTime();
  const id = objectId(faker, created);
  const topics = topicsOf(context);
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
  return {
    id,
    environment_id: environmentId,
    organization_id: organizationId,
    subscriber_id: subscriber.id,
    transaction_id: `txn-${randomHex(faker, 12)}`,
    template_id: workflow.id,
    // Some digest notifications were folded into an earlier one of the same subscriber and workflow.
    digested_notification_id: carrier !== undefined && channels.length && faker.datatype.boolean(0.03) ? carrier : null,
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

interface JobContext {
  type: JobType;
  position: number;
  created: number;
  workflow: WorkflowRow;
  payload: Record<string, unknown>;
}

function generateJob(faker: Faker, { type, position, created, workflow, payload }: JobContext): Job {
  const providerId = faker.helpers.arrayElement(vocabulary.providersByJob[type]);
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
