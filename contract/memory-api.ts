/**
 * The four operations over arrays of rows, answering from the contract's model (`./model`): what the MSW stateful
 * handlers serve, and an implementation the conformance suite passes. It keeps what the model does not: the rows,
 * the environment each caller reads, and idempotent answers by key.
 */
import type {
  ListNotificationsResponse,
  Notification,
  SearchSubscribersResponse,
  Subscriber,
} from "../generated/schema.js";
import {
  type Answer,
  decideIdempotently,
  getNotification,
  idempotencyDocsLink,
  idempotencyFingerprint,
  inEnvironment,
  keepsAnswer,
  type ListOptions,
  listNotifications,
  messages,
  type NotificationListQuery,
  patchSubscriber,
  reusedKeyField,
  type SubscriberSearchQuery,
  searchSubscribers,
} from "./model/index.js";

export type PatchBody = Parameters<typeof patchSubscriber>[2];

/**
 * What an operation answered: a status and a body, or an error named by one of the spec's error examples. `status ===
 * 200` narrows `body` to the operation's answer.
 */
export type MemoryAnswer<Body = unknown> =
  | { status: 200; body: Body; headers?: Record<string, string> }
  | { status: 400 | 402 | 404 | 422; error: MemoryError; headers?: Record<string, string> };

/** An error answer: the spec's named example of it, with this request's message and, for a 422, its inputs. */
export interface MemoryError {
  example: string;
  message?: string;
  errors?: Record<string, { messages: string[]; value: unknown }>;
}

export interface MemoryData {
  subscribers: Subscriber[];
  notifications: Notification[];
}

export interface MemoryApiOptions {
  /** Above this many matches a search reports `totalCountCapped` (Novu's 50,000). */
  totalCountCap?: number;
  /** Days of history a list may read; default unlimited. */
  retentionDays?: number | null;
}

/** Whose request it is: the environment of the caller's key. Without one, every row is visible (one environment). */
export interface CallerEnvironment {
  environmentId?: string | undefined;
}

/** The first answer to an idempotency key, kept for its retries (the skeleton keeps it serialised: StoredAnswer). */
interface KeptAnswer {
  fingerprint: string;
  answer: MemoryAnswer<Subscriber>;
}

function toMemoryAnswer<Body>(answer: Answer<Body>): MemoryAnswer<Body> {
  if (answer.status === 200) return { status: 200, body: answer.body };
  const { status, example, message, errors } = answer;
  return { status, error: { example, message, ...(errors && { errors }) } };
}

export class MemoryApi {
  private current: MemoryData;
  private readonly options: MemoryApiOptions;
  private readonly answers = new Map<string, KeptAnswer>();

  /** Starts from the arrays given; it never changes them or their records (a PATCH makes new ones). */
  constructor(data: MemoryData, options: MemoryApiOptions = {}) {
    this.current = data;
    this.options = options;
  }

  /**
   * The data as the operations see it now. A PATCH replaces the subscribers' array and the record it changed, so a
   * value read before it (a test's expectation, a React state) keeps what it held.
   */
  get data(): MemoryData {
    return this.current;
  }

  /** Starts over from other data (as the constructor, without forgetting idempotent answers). */
  replaceData(data: MemoryData): void {
    this.current = data;
  }

  /** Forgets every stored idempotent answer. */
  forgetIdempotentAnswers(): void {
    this.answers.clear();
  }

  private rows(caller: CallerEnvironment): MemoryData {
    const { environmentId } = caller;
    if (environmentId === undefined) return this.current;
    return {
      subscribers: inEnvironment(this.current.subscribers, environmentId),
      notifications: inEnvironment(this.current.notifications, environmentId),
    };
  }

  searchSubscribers(
    query: SubscriberSearchQuery,
    caller: CallerEnvironment = {},
  ): MemoryAnswer<SearchSubscribersResponse> {
    const options = this.options.totalCountCap === undefined ? {} : { totalCountCap: this.options.totalCountCap };
    return toMemoryAnswer(searchSubscribers(this.rows(caller).subscribers, query, options));
  }

  /** A PATCH; with an idempotency key (scoped to the caller's environment), applied once and replayed. */
  patchSubscriber(
    subscriberId: string,
    body: PatchBody,
    idempotency?: { key: string; path: string },
    caller: CallerEnvironment = {},
  ): MemoryAnswer<Subscriber> {
    if (!idempotency) return this.applyPatch(subscriberId, body, caller);
    const fingerprint = idempotencyFingerprint({ method: "PATCH", path: idempotency.path, body });
    const echo = { "Idempotency-Key": idempotency.key };
    const slot = `${caller.environmentId ?? ""}\n${idempotency.key}`;
    const stored = this.answers.get(slot);
    // One request at a time here: no key is ever held by another.
    switch (decideIdempotently(false, stored, fingerprint)) {
      case "reused": {
        const error = {
          example: "IdempotencyKeyReused",
          message: messages.idempotencyKeyReused(idempotency.key),
          errors: reusedKeyField(idempotency.key),
        };
        return { status: 422, error, headers: { ...echo, Link: idempotencyDocsLink } };
      }
      case "replay":
        return { ...(stored as KeptAnswer).answer, headers: { ...echo, "Idempotency-Replay": "true" } };
      default: {
        const answer = this.applyPatch(subscriberId, body, caller);
        if (keepsAnswer(answer.status)) this.answers.set(slot, { fingerprint, answer });
        return { ...answer, headers: echo };
      }
    }
  }

  private applyPatch(subscriberId: string, body: PatchBody, caller: CallerEnvironment): MemoryAnswer<Subscriber> {
    const answer = patchSubscriber(this.rows(caller).subscribers, subscriberId, body);
    if (answer.status === 200 && answer.changed) {
      const subscribers = this.current.subscribers.map((s) => (s._id === answer.body._id ? answer.body : s));
      this.current = { ...this.current, subscribers };
    }
    return toMemoryAnswer(answer.status === 200 ? { status: 200, body: structuredClone(answer.body) } : answer);
  }

  listNotifications(
    query: NotificationListQuery,
    now: Date = new Date(),
    caller: CallerEnvironment = {},
  ): MemoryAnswer<ListNotificationsResponse> {
    const { subscribers, notifications } = this.rows(caller);
    const options: ListOptions = { now, retentionDays: this.options.retentionDays ?? null };
    return toMemoryAnswer(listNotifications(notifications, subscribers, query, options));
  }

  getNotification(notificationId: string, caller: CallerEnvironment = {}): MemoryAnswer<Notification> {
    const options: ListOptions = { retentionDays: this.options.retentionDays ?? null };
    return toMemoryAnswer(getNotification(this.rows(caller).notifications, notificationId, options));
  }
}
