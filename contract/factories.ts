/**
 * Realistic data in the contract's shapes, deterministic by seed, for component tests, Storybook and mocks: names,
 * e-mails, phone numbers, locales and time zones that go together, dates before `now`, workflows with their jobs and
 * execution details. Every value is valid against the spec (test/client/factories.test.ts checks thousands of seeds
 * with ajv). No dependency: a seeded generator and small lists, so the contract stays small.
 *
 *   const make = createFactories({ seed: 7 });
 *   const alice = make.subscriber({ firstName: "Alice" });
 *   const page = make.searchSubscribersResponse({ data: make.subscribers(10) });
 */

import { operationTable } from "../generated/operations.js";
import type {
  ChannelSettings,
  ChannelType,
  ErrorDto,
  ExecutionDetail,
  Job,
  JobType,
  ListNotificationsResponse,
  Notification,
  NotificationTemplate,
  ProviderId,
  SearchSubscribersResponse,
  Step,
  Subscriber,
  ValidationErrorDto,
} from "../generated/schema.js";
import {
  channelTypes,
  emailDomains,
  firstNames,
  lastNames,
  places,
  plans,
  providersByJob,
  topicKeys,
  workflows,
} from "./vocabulary.js";

export interface FactoryOptions {
  /** The same seed gives the same data, call for call (default 1). */
  seed?: number;
  /** Dates are drawn before this moment (default: the start of the current UTC day, so a day's data is stable). */
  now?: Date | string | number;
}

const day = 86_400_000;

/** mulberry32: a small, fast generator with a 32-bit state; plenty for test data. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function startOfUtcDay(at: number): number {
  return Math.floor(at / day) * day;
}

export interface Factories {
  subscriber(overrides?: Partial<Subscriber>): Subscriber;
  /** `count` subscribers; overrides apply to each (a function gets the index). */
  subscribers(count: number, overrides?: Partial<Subscriber> | ((index: number) => Partial<Subscriber>)): Subscriber[];
  /** A notification to `subscriber` (default: a new one). */
  notification(overrides?: Partial<Notification>, subscriber?: Subscriber): Notification;
  notifications(
    count: number,
    overrides?: Partial<Notification> | ((index: number) => Partial<Notification>),
    subscribers?: Subscriber[],
  ): Notification[];
  /** A page of a subscriber search (default: 10 new subscribers, the first page of more). */
  searchSubscribersResponse(overrides?: Partial<SearchSubscribersResponse>): SearchSubscribersResponse;
  /** A page of a notification list (default: 10 new notifications, page 0 of more). */
  listNotificationsResponse(overrides?: Partial<ListNotificationsResponse>): ListNotificationsResponse;
  /**
   * An error body of this status, in the server's shape (`path` defaults to "/"), typed with its status:
   * `respond("getNotification", 503, make.error(503))` compiles.
   */
  error<S extends number>(status: S, overrides?: Partial<ErrorDto>): ErrorDto & { statusCode: S };
  /** A 422 body naming each invalid input (default: an invalid `body.email`). */
  validationError(errors?: ValidationErrorDto["errors"], overrides?: Partial<ValidationErrorDto>): ValidationErrorDto;
  /** A 24-hex id, like an ObjectId: its first 8 characters are the seconds of `at`. */
  objectId(at?: Date): string;
}

const reasons: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

export function createFactories(options: FactoryOptions = {}): Factories {
  const random = generator(options.seed ?? 1);
  const now = options.now === undefined ? startOfUtcDay(Date.now()) : new Date(options.now).getTime();
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const weighted = <T>(items: readonly { value: T; weight: number }[]): T => {
    const draw = random() * items.reduce((sum, item) => sum + item.weight, 0);
    let below = 0;
    for (const item of items) {
      below += item.weight;
      if (draw < below) return item.value;
    }
    return (items.at(-1) as { value: T }).value;
  };
  const chance = (p: number) => random() < p;
  const some = <T>(items: readonly T[], max: number): T[] => items.filter(() => chance(max / items.length / 2));
  const hex = (length: number) => Array.from({ length }, () => int(0, 15).toString(16)).join("");
  const digits = (length: number) => `${int(1, 9)}${Array.from({ length: length - 1 }, () => int(0, 9)).join("")}`;
  const iso = (at: number) => new Date(at).toISOString();
  const objectId = (at: Date = new Date(now)) =>
    Math.floor(at.getTime() / 1000)
      .toString(16)
      .padStart(8, "0")
      .slice(-8) + hex(16);
  const ascii = (text: string) =>
    text
      .normalize("NFD")
      .replace(/[^A-Za-z]/g, "")
      .toLowerCase();
  // One factory's subscribers never share a subscriberId or an e-mail address, as one environment's cannot.
  const subscriberIds = new Set<string>();
  const emails = new Set<string>();
  /** The value, or the first of value-2, value-3, ... not taken yet (before the `@` of an address). */
  const unique = (taken: Set<string>, value: string) => {
    const at = value.includes("@") ? value.indexOf("@") : value.length;
    let candidate = value;
    for (let n = 2; taken.has(candidate); n++) candidate = `${value.slice(0, at)}-${n}${value.slice(at)}`;
    taken.add(candidate);
    return candidate;
  };
  const organizationId = objectId(new Date(now - 800 * day));
  const environmentId = objectId(new Date(now - 800 * day));

  function subscriber(overrides: Partial<Subscriber> = {}): Subscriber {
    const place = pick(places);
    const firstName = pick(firstNames);
    const lastName = pick(lastNames);
    const created = now - int(1, 365) * day + int(0, day - 1);
    const updated = chance(0.6) ? created : int(created, now - 1);
    const lastOnline = chance(0.7) ? int(created, now - 1) : null;
    const channels: ChannelSettings[] = [];
    if (chance(0.3)) {
      const provider = pick(["slack", "msteams"] as const);
      channels.push({
        providerId: provider,
        integrationIdentifier: `${provider}-workspace`,
        _integrationId: objectId(new Date(now - 700 * day)),
        credentials: {
          webhookUrl: `https://hooks.example.com/${provider}/${hex(12)}`,
          channel: pick(["#general", "#alerts"]),
        },
      });
    }
    if (chance(0.3)) {
      channels.push({
        providerId: pick(["fcm", "apns"] as const),
        _integrationId: objectId(new Date(now - 700 * day)),
        credentials: { deviceTokens: Array.from({ length: int(1, 2) }, () => hex(32)) },
      });
    }

    return {
      _id: objectId(new Date(created)),
      subscriberId: unique(
        subscriberIds,
        chance(0.85) ? `user-${10000 + int(0, 89999)}` : `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
      ),
      firstName,
      lastName,
      email: chance(0.92)
        ? unique(
            emails,
            `${ascii(firstName)}.${ascii(lastName)}${chance(0.3) ? int(1, 99) : ""}@${weighted(emailDomains)}`,
          )
        : null,
      phone: chance(0.75) ? `+${place.countryCode}${digits(place.digits)}` : null,
      avatar: chance(0.5) ? `https://cdn.example.com/avatars/${hex(10)}.png` : null,
      locale: chance(0.9) ? place.locale : null,
      timezone: chance(0.9) ? place.timezone : null,
      channels,
      topics: some(topicKeys, 2),
      isOnline: lastOnline === null ? null : chance(0.2),
      lastOnlineAt: lastOnline === null ? null : iso(lastOnline),
      __v: updated === created ? 0 : int(1, 6),
      data: chance(0.6) ? { plan: pick(plans), seats: int(1, 500) } : null,
      _organizationId: organizationId,
      _environmentId: environmentId,
      deleted: false,
      createdAt: iso(created),
      updatedAt: iso(updated),
      ...overrides,
    };
  }

  function executionDetails(
    type: JobType,
    providerId: ProviderId,
    started: number,
    failed: boolean,
  ): ExecutionDetail[] {
    const finished = started + int(50, 4000);
    const channel = channelTypes.includes(type as ChannelType);
    return [
      {
        _id: objectId(new Date(started)),
        createdAt: iso(started),
        status: "Pending",
        detail: "Step queued",
        isRetry: false,
        isTest: false,
        source: "Internal",
      },
      failed
        ? {
            _id: objectId(new Date(finished)),
            createdAt: iso(finished),
            status: "Failed",
            detail: "Provider rejected the message",
            isRetry: chance(0.3),
            isTest: false,
            providerId,
            source: "Credentials",
            raw: '{"statusCode":400,"message":"invalid recipient"}',
          }
        : {
            _id: objectId(new Date(finished)),
            createdAt: iso(finished),
            status: "Success",
            detail: channel ? "Message sent" : "Step completed",
            isRetry: false,
            isTest: false,
            providerId,
            source: channel ? "Credentials" : "Internal",
          },
    ];
  }

  function step(type: JobType, identifier: string, templateId: string, at: number): Step {
    return {
      _id: objectId(new Date(at - 400 * day)),
      active: true,
      name: `${identifier}-${type.replace("_", "-")}`,
      filters: chance(0.3)
        ? [
            {
              isNegated: false,
              type: "STATEMENT",
              value: "AND",
              children: [{ field: "locale", value: "de", operator: "EQUAL", on: "subscriber" }],
            },
          ]
        : [],
      _templateId: templateId,
      _parentId: null,
      variants: [],
    };
  }

  function notification(overrides: Partial<Notification> = {}, to: Subscriber = subscriber()): Notification {
    const workflow = pick(workflows);
    const templateId = objectId(new Date(now - 500 * day - workflows.indexOf(workflow) * 1000));
    const created = now - int(60_000, 90 * day);
    const payload = Object.fromEntries(
      workflow.variables.map((variable) => [variable, `${variable}-${int(1000, 9999)}`]),
    );
    const jobs: Job[] = workflow.steps.map((type, position) => {
      const started = created + position * 1000 + int(0, 800);
      const providerId: ProviderId = pick(providersByJob[type]);
      const failed = channelTypes.includes(type as ChannelType) && chance(0.08);
      const details = executionDetails(type, providerId, started, failed);
      return {
        _id: objectId(new Date(started)),
        type,
        providerId,
        status: failed ? "failed" : "completed",
        updatedAt: details.at(-1)?.createdAt,
        payload,
        overrides: { workflowId: workflow.identifier, stepId: `${type.replace("_", "-")}-step` },
        executionDetails: details,
        step: step(type, workflow.identifier, templateId, started),
        ...(type === "digest"
          ? {
              digest: {
                type: "regular" as const,
                digestKey: "documentTitle",
                amount: 10,
                unit: "minutes" as const,
                events: [{ commentAuthor: `${pick(firstNames)} ${pick(lastNames)}` }],
              },
            }
          : {}),
      };
    });
    const template: NotificationTemplate = {
      _id: templateId,
      name: workflow.name,
      origin: workflow.origin,
      triggers: [
        {
          type: "event",
          identifier: workflow.identifier,
          variables: workflow.variables.map((name) => ({ name })),
          subscriberVariables: [{ name: "email" }],
        },
      ],
    };
    const topics = chance(0.25) ? [{ _topicId: objectId(new Date(now - 600 * day)), topicKey: pick(topicKeys) }] : [];
    return {
      _id: objectId(new Date(created)),
      _environmentId: to._environmentId,
      _organizationId: to._organizationId,
      _subscriberId: to._id,
      transactionId: `txn-${hex(12)}`,
      _templateId: templateId,
      createdAt: iso(created),
      updatedAt: jobs.at(-1)?.updatedAt ?? iso(created),
      channels: workflow.steps.filter((type): type is ChannelType => channelTypes.includes(type as ChannelType)),
      subscriber: {
        _id: to._id,
        subscriberId: to.subscriberId,
        ...(to.firstName !== null && { firstName: to.firstName }),
        ...(to.lastName !== null && { lastName: to.lastName }),
        ...(to.email !== null && { email: to.email }),
        ...(to.phone !== null && { phone: to.phone }),
      },
      template,
      jobs,
      payload,
      tags: workflow.tags,
      controls: {},
      to: { subscriberId: to.subscriberId },
      topics,
      severity: workflow.severity ?? "none",
      critical: chance(0.1),
      contextKeys: [],
      ...overrides,
    };
  }

  const each = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, i) => make(i));
  const overridesAt = <T>(overrides: T | ((index: number) => T) | undefined, index: number) =>
    typeof overrides === "function" ? (overrides as (index: number) => T)(index) : overrides;

  return {
    subscriber,
    subscribers: (count, overrides) => each(count, (i) => subscriber(overridesAt(overrides, i))),
    notification,
    notifications: (count, overrides, to) =>
      each(count, (i) =>
        notification(overridesAt(overrides, i), to?.length ? (to[i % to.length] as Subscriber) : undefined),
      ),
    searchSubscribersResponse(overrides = {}) {
      const data = overrides.data ?? each(10, () => subscriber());
      return {
        data,
        next: data.at(-1)?._id ?? null,
        previous: null,
        totalCount: data.length + (data.length > 0 ? int(1, 500) : 0),
        totalCountCapped: false,
        ...overrides,
      };
    },
    listNotificationsResponse(overrides = {}) {
      const data = overrides.data ?? each(10, () => notification());
      const largest = operationTable.listNotifications.queryBounds.limit.maximum;
      return { data, hasMore: true, pageSize: Math.max(1, Math.min(largest, data.length)), page: 0, ...overrides };
    },
    error: <S extends number>(status: S, overrides: Partial<ErrorDto> = {}) => ({
      error: reasons[status] ?? "Error",
      message: status === 404 ? "Notification not found" : (reasons[status] ?? "Error"),
      timestamp: iso(now),
      path: "/",
      ...overrides,
      statusCode: status,
    }),
    validationError: (
      errors = {
        "body.email": { messages: ["Must be an e-mail address such as maya.patel@example.com"], value: "maya@" },
      },
      overrides = {},
    ) => ({
      statusCode: 422,
      error: "Unprocessable Entity",
      message: "Validation Error",
      timestamp: iso(now),
      path: "/",
      ctx: {},
      errors,
      ...overrides,
    }),
    objectId,
  };
}

/** Calls of the make* functions without a seed so far: each such call draws from the next seed. */
let unseededCalls = 0;

/**
 * The factories of one `make*` call: those of `options.seed` when given (the same record each time), else of a seed
 * of its own, so that two calls make two different records (distinct ids and e-mails: no duplicate React keys), in
 * the same order on every run.
 */
function factoriesOf(options: FactoryOptions = {}): Factories {
  return createFactories(options.seed === undefined ? { ...options, seed: 1_000_000 + ++unseededCalls } : options);
}

/** One subscriber; a new one each call, unless `options.seed` is given. */
export function makeSubscriber(overrides?: Partial<Subscriber>, options?: FactoryOptions): Subscriber {
  return factoriesOf(options).subscriber(overrides);
}

/** `count` subscribers; new ones each call, unless `options.seed` is given. */
export function makeSubscribers(count: number, options?: FactoryOptions): Subscriber[] {
  return factoriesOf(options).subscribers(count);
}

/** One notification; a new one each call, unless `options.seed` is given. */
export function makeNotification(overrides?: Partial<Notification>, options?: FactoryOptions): Notification {
  return factoriesOf(options).notification(overrides);
}

/** `count` notifications to `subscribers` (default: new ones); new ones each call, unless `options.seed` is given. */
export function makeNotifications(
  count: number,
  options?: FactoryOptions & { subscribers?: Subscriber[] },
): Notification[] {
  return factoriesOf(options).notifications(count, undefined, options?.subscribers);
}

/** The words the factories and the demo data are made of (vocabulary.ts). */
export * as vocabulary from "./vocabulary.js";
