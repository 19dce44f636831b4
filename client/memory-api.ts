/**
 * The four operations over arrays, with the reference server's semantics: literal, case-insensitive substring
 * filters; keyset pages on (orderBy, _id) in both directions with `includeCursor`; a capped `totalCount`; a PATCH that
 * merges, clears with null, bumps `__v` once per real change and is idempotent by key; notification filters ANDed,
 * subscriber filters ORed, inclusive dates, newest first, an exact `hasMore`. The MSW handlers' stateful mode answers
 * from it (`createStatefulHandlers`), and the conformance suite's behaviour rules pass against it.
 */
import type { operations } from "../generated/schema.js";
import type { Notification, Subscriber } from "./index.js";

type Query<K extends keyof operations> = NonNullable<operations[K]["parameters"]["query"]>;
export type SearchQuery = Query<"searchSubscribers">;
export type ListQuery = Query<"listNotifications">;
export type PatchBody = operations["patchSubscriber"]["requestBody"]["content"]["application/json"];

/** What an operation answered: a status and a body, or an error named by one of the spec's error examples. */
export type MemoryAnswer =
  | { status: 200; body: unknown; headers?: Record<string, string> }
  | { status: number; error: MemoryError; headers?: Record<string, string> };

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
}

interface StoredAnswer {
  fingerprint: string;
  answer: MemoryAnswer;
}

const idempotencyLink = { Link: "https://docs.novu.co/additional-resources/idempotency" };

function contains(value: string | null | undefined, term: string | undefined): boolean {
  return term === undefined || (value ?? "").toLowerCase().includes(term.toLowerCase());
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export class MemoryApi {
  readonly data: MemoryData;
  private readonly totalCountCap: number;
  private readonly answers = new Map<string, StoredAnswer>();

  /** Works on the arrays given (a PATCH changes them in place); clone them first to keep the originals. */
  constructor(data: MemoryData, options: MemoryApiOptions = {}) {
    this.data = data;
    this.totalCountCap = options.totalCountCap ?? 50_000;
  }

  /** Forgets every stored idempotent answer. */
  forgetIdempotentAnswers(): void {
    this.answers.clear();
  }

  searchSubscribers(query: SearchQuery): MemoryAnswer {
    if (query.after !== undefined && query.before !== undefined) {
      return { status: 400, error: { example: "BadRequestBothCursors" } };
    }
    const { limit = 10, orderBy = "_id", orderDirection = "DESC", includeCursor = false } = query;
    const live = this.data.subscribers.filter((s) => !s.deleted);
    const matching = live.filter(
      (s) =>
        contains(s.email, query.email) &&
        contains(s.phone, query.phone) &&
        contains(`${s.firstName ?? ""} ${s.lastName ?? ""}`, query.name) &&
        (query.subscriberId === undefined || s.subscriberId === query.subscriberId),
    );
    const sign = orderDirection === "ASC" ? 1 : -1;
    const compare = (a: Subscriber, b: Subscriber) => {
      const [x, y] = orderBy === "_id" ? ["", ""] : [a[orderBy], b[orderBy]];
      if (x !== y) return x < y ? -1 : 1;
      return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
    };
    const ordered = matching.sort((a, b) => sign * compare(a, b));
    const counts = {
      totalCount: Math.min(matching.length, this.totalCountCap),
      totalCountCapped: matching.length > this.totalCountCap,
    };
    const cursorId = query.after ?? query.before;
    const cursor = cursorId === undefined ? undefined : live.find((s) => s._id === cursorId);
    if (cursorId !== undefined && !cursor) {
      return { status: 200, body: { data: [], next: null, previous: null, ...counts } };
    }
    let page: Subscriber[];
    if (cursor && query.after !== undefined) {
      page = ordered.filter((s) => sign * compare(s, cursor) > 0 || (includeCursor && s === cursor)).slice(0, limit);
    } else if (cursor) {
      page = ordered.filter((s) => sign * compare(s, cursor) < 0 || (includeCursor && s === cursor)).slice(-limit);
    } else {
      page = ordered.slice(0, limit);
    }
    const first = page[0];
    const last = page.at(-1);
    return {
      status: 200,
      body: {
        data: structuredClone(page),
        next: last && ordered.indexOf(last) < ordered.length - 1 ? last._id : null,
        previous: first && ordered.indexOf(first) > 0 ? first._id : null,
        ...counts,
      },
    };
  }

  /** A PATCH; with an idempotency key, applied once and replayed as Novu's interceptor does. */
  patchSubscriber(subscriberId: string, body: PatchBody, idempotency?: { key: string; path: string }): MemoryAnswer {
    if (!idempotency) return this.applyPatch(subscriberId, body);
    const fingerprint = `${idempotency.path}\n${canonical(body)}`;
    const echo = { "Idempotency-Key": idempotency.key };
    const stored = this.answers.get(idempotency.key);
    if (stored && stored.fingerprint !== fingerprint) {
      const field = { messages: ["was already used with a different method, path or body"], value: idempotency.key };
      return {
        status: 422,
        error: {
          example: "IdempotencyKeyReused",
          message: `Request with key "${idempotency.key}" is being reused for a different body`,
          errors: { "headers.idempotency-key": field },
        },
        headers: { ...echo, ...idempotencyLink },
      };
    }
    if (stored) return { ...stored.answer, headers: { ...echo, "Idempotency-Replay": "true" } };
    const answer = this.applyPatch(subscriberId, body);
    if (answer.status === 200 || answer.status === 404) this.answers.set(idempotency.key, { fingerprint, answer });
    return { ...answer, headers: echo };
  }

  private applyPatch(subscriberId: string, body: PatchBody): MemoryAnswer {
    if (typeof body.timezone === "string" && !isTimeZone(body.timezone)) {
      const field = { messages: ["must be an IANA time zone name"], value: body.timezone };
      return { status: 422, error: { example: "ValidationPatchBody", errors: { "body.timezone": field } } };
    }
    const subscriber = this.data.subscribers.find((s) => s.subscriberId === subscriberId && !s.deleted);
    if (!subscriber) {
      return {
        status: 404,
        error: { example: "SubscriberNotFound", message: `Subscriber ${subscriberId} was not found` },
      };
    }
    const changes = Object.entries(body).filter(
      ([field, value]) => canonical(subscriber[field as keyof PatchBody]) !== canonical(value),
    );
    if (changes.length > 0) {
      Object.assign(subscriber, structuredClone(Object.fromEntries(changes)));
      subscriber.__v += 1;
      subscriber.updatedAt = new Date().toISOString();
    }
    return { status: 200, body: structuredClone(subscriber) };
  }

  listNotifications(query: ListQuery, now: Date = new Date()): MemoryAnswer {
    const after = query.after !== undefined ? Date.parse(query.after) : 0;
    const before = query.before !== undefined ? Date.parse(query.before) : now.getTime();
    if (after > before) return { status: 400, error: { example: "BadRequestDateRange" } };
    const { page = 0, limit = 10, emails, subscriberIds, search } = query;
    const bySubscriber =
      emails === undefined && subscriberIds === undefined && search === undefined
        ? undefined
        : new Set(
            this.data.subscribers
              .filter(
                (s) =>
                  (emails ?? []).includes(s.email ?? "") ||
                  (subscriberIds ?? []).includes(s.subscriberId) ||
                  (search !== undefined && (contains(s.email, search) || s.subscriberId === search)),
              )
              .map((s) => s._id),
          );
    const matching = this.data.notifications
      .filter((n) => bySubscriber === undefined || bySubscriber.has(n._subscriberId))
      .filter((n) => query.channels === undefined || n.channels.some((c) => query.channels?.includes(c)))
      .filter((n) => query.templates === undefined || query.templates.includes(n._templateId ?? ""))
      .filter((n) => query.severity === undefined || query.severity.includes(n.severity))
      .filter((n) => query.transactionId === undefined || n.transactionId === query.transactionId)
      .filter((n) => query.topicKey === undefined || (n.topics ?? []).some((t) => t.topicKey === query.topicKey))
      .filter((n) => Date.parse(n.createdAt) >= after && Date.parse(n.createdAt) <= before)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b._id.localeCompare(a._id));
    const offset = page * limit;
    return {
      status: 200,
      body: {
        data: structuredClone(matching.slice(offset, offset + limit)),
        hasMore: matching.length > offset + limit,
        pageSize: limit,
        page,
      },
    };
  }

  getNotification(notificationId: string): MemoryAnswer {
    const found = this.data.notifications.find((n) => n._id === notificationId);
    return found
      ? { status: 200, body: structuredClone(found) }
      : { status: 404, error: { example: "NotificationNotFound" } };
  }
}
