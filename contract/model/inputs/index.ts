/**
 * Every operation's inputs, declared once (kinds.ts says what a declaration holds), and what is derived from them for
 * everyone who reads them: the model's filters, the refusals made before any data is read (the skeleton's pipeline
 * and the model alike), the forms handlers get (normalised), what a request costs (admission), and the values the
 * property tests and the conformance oracle send.
 *
 * An operation the spec has and this table lacks has no semantics yet: its handler answers 501 and the conformance
 * coverage reports it as todo, as for an operation just added. An operation in the table must declare every input of
 * the spec, no more (the typecheck, and test/contract/inputs.test.ts, name the one missing).
 */
import { type OperationId, operationTable } from "../../../generated/operations.js";
import type { Refusal } from "../answers.js";
import { messages } from "../messages.js";
import { getNotificationInputs } from "./get-notification.js";
import type { Cost, OperationInputs, RefusalContext, RequestInputs } from "./kinds.js";
import { listNotificationsInputs } from "./list-notifications.js";
import { patchSubscriberInputs } from "./patch-subscriber.js";
import { searchSubscribersInputs } from "./search-subscribers.js";

export type * from "./kinds.js";

/** The declarations by operation (named, so that declaration files refer to them rather than repeat them). */
interface Declarations {
  searchSubscribers: typeof searchSubscribersInputs;
  patchSubscriber: typeof patchSubscriberInputs;
  listNotifications: typeof listNotificationsInputs;
  getNotification: typeof getNotificationInputs;
}

export const inputs: Declarations = {
  searchSubscribers: searchSubscribersInputs,
  patchSubscriber: patchSubscriberInputs,
  listNotifications: listNotificationsInputs,
  getNotification: getNotificationInputs,
} satisfies { [K in OperationId]?: OperationInputs<K> };
export type DeclaredOperation = keyof Declarations;

type QueryDeclarations<K extends DeclaredOperation> = Declarations[K]["query"];
/** The names of an operation's query parameters of one kind (`"filter"`, `"subscriber-filter"`, ...). */
export type QueryInputName<K extends DeclaredOperation, Kind extends string> = {
  [P in keyof QueryDeclarations<K>]: QueryDeclarations<K>[P] extends { kind: Kind } ? P : never;
}[keyof QueryDeclarations<K>] &
  string;

/** Whether the declarations cover an operation (every operation of the contract today; a new one until declared). */
export function declaresInputs(id: OperationId): id is DeclaredOperation {
  return id in inputs;
}

/** Any declaration, as the loops below read it (each declaration's own types are checked where it is written). */
interface AnyInput {
  kind: string;
  meaning: string;
  cost: Cost;
  normalise?(value: unknown): unknown;
  refuse?(value: unknown): string | undefined;
  matches?(row: unknown, value: unknown): boolean;
  resolves?(subscriber: unknown, value: unknown): boolean;
}
type WithPredicate<Name extends "matches" | "resolves"> = AnyInput & Required<Pick<AnyInput, Name>>;

type DeclaredInput = readonly ["query" | "path" | "body", string, AnyInput];

// Listed once, frozen: the declarations never change, and refusalOf and normalised read them on every request.
const declaredLists = Object.fromEntries(
  Object.entries(inputs).map(([id, operation]) => {
    const declared = operation as unknown as Record<"query" | "path" | "body", Record<string, AnyInput>>;
    const listed: readonly DeclaredInput[] = Object.freeze(
      (["query", "path", "body"] as const).flatMap((place) =>
        Object.entries(declared[place]).map(([name, input]) => Object.freeze([place, name, input] as const)),
      ),
    );
    return [id, listed];
  }),
) as Record<DeclaredOperation, readonly DeclaredInput[]>;

/** An operation's declared inputs of every place, as `[place, name, declaration]`. */
export function declaredInputs(id: DeclaredOperation): readonly DeclaredInput[] {
  return declaredLists[id];
}

/** The query parameters of a kind that a query gives a value, with their declarations. */
function givenQueryInputs(id: DeclaredOperation, kind: string, query: object): [AnyInput, unknown][] {
  const declared = inputs[id].query as unknown as Record<string, AnyInput>;
  return Object.entries(query).flatMap(([name, value]): [AnyInput, unknown][] => {
    const input = declared[name];
    return input?.kind === kind && value !== undefined ? [[input, value]] : [];
  });
}

/** Whether a record passes every record filter the query gives (ANDed). */
export function passesFilters(id: DeclaredOperation, row: unknown, query: object): boolean {
  return givenQueryInputs(id, "filter", query).every(([filter, value]) =>
    (filter as WithPredicate<"matches">).matches(row, value),
  );
}

/** The subscriber filters the query gives (ORed among themselves), as tests of a subscriber. */
export function givenSubscriberFilters(id: DeclaredOperation, query: object): ((subscriber: unknown) => boolean)[] {
  return givenQueryInputs(id, "subscriber-filter", query).map(
    ([filter, value]) =>
      (subscriber) =>
        (filter as WithPredicate<"resolves">).resolves(subscriber, value),
  );
}

/**
 * What the contract refuses in a request before any data is read: the inputs a declaration refuses (one 422 naming
 * each, `body.timezone`), then the operation's refusals over several inputs (400 both cursors, 400 a reversed window,
 * 402 a window before the caller's retention when it is known). Undefined when nothing is refused.
 */
export function refusalOf<K extends DeclaredOperation>(
  id: K,
  request: RequestInputs<K>,
  context: RefusalContext,
): Refusal | undefined {
  let errors: Record<string, { messages: string[]; value: unknown }> | undefined;
  // Read by index: destructuring the frozen entries takes the iterator protocol on every request (1.1-1.8 µs a call
  // and about 2 KB of garbage, against 0.3-0.4 µs, measured in a loop on Node 24).
  for (const declared of declaredInputs(id)) {
    const place = declared[0];
    const name = declared[1];
    const value = (request[place] as Record<string, unknown>)[name];
    const problem = value === undefined ? undefined : declared[2].refuse?.(value);
    if (problem) {
      errors ??= {};
      errors[`${place}.${name}`] = { messages: [problem], value };
    }
  }
  if (errors) {
    const example = (operationTable[id].examples as Record<string, readonly string[]>)["422"]?.[0] ?? "Validation";
    return { status: 422, example, message: messages.validation, errors };
  }
  const refusals = inputs[id].refusals as OperationInputs<K>["refusals"];
  for (const refusal of refusals) {
    const refused = refusal(request, context);
    if (refused) return refused;
  }
  return undefined;
}

/** The inputs as handlers get them: each declared normalisation applied (date-times in one UTC form). */
export function normalised<K extends DeclaredOperation>(id: K, request: RequestInputs<K>): RequestInputs<K> {
  const result = { query: { ...request.query }, path: { ...request.path }, body: request.body };
  for (const declared of declaredInputs(id)) {
    const place = declared[0];
    const input = declared[2];
    if (!input.normalise || place === "body") continue;
    const values = result[place] as Record<string, unknown>;
    const name = declared[1];
    if (values[name] !== undefined) values[name] = input.normalise(values[name]);
  }
  return result as RequestInputs<K>;
}

/**
 * What a request costs, for admission: expensive when an input it gives is, or when its page starts at or past
 * `deepOffset` rows (`page × limit`).
 */
export function costOf(id: OperationId, query: Record<string, unknown>, deepOffset: number): "cheap" | "expensive" {
  if (!declaresInputs(id)) return "cheap";
  for (const declared of costedQueryInputs[id]) {
    const name = declared[1];
    const value = query[name];
    if (value === undefined) continue;
    if (declared[2].cost === "expensive") return "expensive";
    // The other cost listed is "deep-offset".
    if (Number(value) * Number(query.limit ?? 0) >= deepOffset) return "expensive";
  }
  return "cheap";
}

/** Each operation's query inputs that are not always cheap, listed once: `costOf` reads them on every request. */
const costedQueryInputs = Object.fromEntries(
  Object.entries(declaredLists).map(([id, listed]) => [
    id,
    (listed as readonly DeclaredInput[]).filter((declared) => declared[0] === "query" && declared[2].cost !== "cheap"),
  ]),
) as unknown as Record<DeclaredOperation, readonly DeclaredInput[]>;
