/**
 * What an input of an operation is, declared once beside its meaning: the types of the declarations in this folder.
 * The spec says an input's shape; its declaration says what it does (the predicate it is over the model's records, or
 * its part in paging, order, cursors, the date window, a PATCH), how a client's forms of it are read (normalise),
 * what it refuses without reading any data, what it costs the server (admission), and which values clients send
 * for it (samples drawn from data, and the other forms of each: variants), from which the property tests and the
 * conformance oracle draw.
 *
 * The declaration's keys are the operation's: `{ [P in keyof Query]-?: ... }`. A parameter the spec gains and no
 * declaration names fails the typecheck at its operation's declaration, naming it; one declared that the spec lacks
 * is an excess property. test/contract/inputs.test.ts says the same in words at run time.
 */
import type { OperationId } from "../../../generated/operations.js";
import type { Notification, operations, Subscriber } from "../../../generated/schema.js";
import type { Refusal } from "../answers.js";
import type { Random } from "../random.js";

/** The records an operation reads: one environment's subscribers and notifications. */
export interface ModelData {
  subscribers: readonly Subscriber[];
  notifications: readonly Notification[];
}

/**
 * What an input costs the server, for admission: `expensive` inputs (a substring filter) need one of the few
 * expensive turns; `deep-offset` is expensive once the page it asks for starts past the server's deep-page offset.
 */
export type Cost = "cheap" | "expensive" | "deep-offset";

interface Declared<Value> {
  /** What it means, in a sentence (docs/backend.md's per-operation table quotes it). */
  meaning: string;
  cost: Cost;
  /** The one form a handler gets, whatever form of it the client sent (a date-time in UTC with milliseconds). */
  normalise?: (value: Value) => Value;
  /** Why the value is refused before any data is read (a 422 entry's message), or undefined. */
  refuse?: (value: Value) => string | undefined;
  /** Values clients send, drawn from the data so that they select something, and some that select nothing. */
  samples: (data: ModelData, random: Random) => Value[];
  /** The other forms a client may send for a value (an offset, a case, padding): the model answers each. */
  variants?: (value: Value, random: Random) => Value[];
}

/** A filter over the operation's records: a record passes when `matches` says so (filters are ANDed). */
export interface RecordFilter<Row, Value> extends Declared<Value> {
  kind: "filter";
  matches: (row: Row, value: Value) => boolean;
}

/**
 * A filter that names subscribers (the list's `emails`, `subscriberIds`, `search`): the subscribers it resolves to
 * are ORed with those of the other subscriber filters, and a notification passes when it was sent to one of them.
 */
export interface SubscriberFilter<Value> extends Declared<Value> {
  kind: "subscriber-filter";
  resolves: (subscriber: Subscriber, value: Value) => boolean;
}

/** An input that shapes the answer rather than filtering it: paging, order, a cursor, the date window, an id. */
export interface Control<Value> extends Declared<Value> {
  kind: "page" | "order" | "cursor" | "window" | "id";
}

/** A PATCH body field: replaces the stored value (null clears it, absent keeps it; equal JSON changes nothing). */
export interface BodyField<Value> extends Declared<Value> {
  kind: "field";
  merge: "replace";
}

export type QueryInput<Row, Value> = RecordFilter<Row, Value> | SubscriberFilter<Value> | Control<Value>;

/** An operation's parameters of one place, or none (`query?: never`). */
type Present<T> = [Exclude<T, undefined>] extends [never] ? Record<string, never> : Exclude<T, undefined>;
export type QueryOf<K extends OperationId> = Present<operations[K]["parameters"]["query"]>;
export type PathOf<K extends OperationId> = Present<operations[K]["parameters"]["path"]>;
export type BodyOf<K extends OperationId> = operations[K] extends {
  requestBody: { content: { "application/json": infer Body } };
}
  ? Body
  : Record<string, never>;

/** What an operation's refusals see besides its inputs: the time, and the caller's retention when it is known. */
export interface RefusalContext {
  now: Date;
  /** Days of history the caller's environment may read; null or absent: unlimited. */
  retentionDays?: number | null | undefined;
}

/** What an operation's refusals see: its inputs as the client sent them. */
export interface RequestInputs<K extends OperationId> {
  query: Partial<QueryOf<K>>;
  path: Partial<PathOf<K>>;
  body: Partial<BodyOf<K>>;
}

/** The records an operation's filters are over. */
type RowOf<K extends OperationId> = K extends "searchSubscribers" | "patchSubscriber" ? Subscriber : Notification;

export interface OperationInputs<K extends OperationId> {
  query: { [P in keyof QueryOf<K>]-?: QueryInput<RowOf<K>, Exclude<QueryOf<K>[P], undefined>> };
  path: { [P in keyof PathOf<K>]-?: Control<PathOf<K>[P]> };
  body: { [P in keyof BodyOf<K>]-?: BodyField<Exclude<BodyOf<K>[P], undefined>> };
  /** Refusals that take several inputs at once (both cursors; a window that ends before it starts), no data read. */
  refusals: ((inputs: RequestInputs<K>, context: RefusalContext) => Refusal | undefined)[];
}
