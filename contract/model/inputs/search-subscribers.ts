/** The inputs of GET /v2/subscribers (searchSubscribers), declared once: see kinds.ts. */
import { operationTable } from "../../../generated/operations.js";
import type { Subscriber } from "../../../generated/schema.js";
import { containsIgnoringCase, searchedName, termVariants } from "../matching.js";
import { messages } from "../messages.js";
import type { Random } from "../random.js";
import { subscriberCursorOf, subscriberCursorProblem } from "../subscriber-cursor.js";
import type { ModelData, OperationInputs, RequestInputs } from "./kinds.js";

const unknownId = "ffffffffffffffffffffffff";
const { maximum: maxLimit = 100, minimum: minLimit = 1 } = operationTable.searchSubscribers.queryBounds.limit;

const live = (data: ModelData) => data.subscribers.filter((s) => !s.deleted);
const present = (values: (string | null | undefined)[]) => values.filter((v): v is string => !!v);

/**
 * The values that trip substring filters up: a space at either end (a name with a part missing is ` Ng`), a letter
 * outside ASCII, a LIKE metacharacter.
 */
const awkward = (value: string) => /^\s|\s$|[^ -~]|[%_\\]/.test(value);

/**
 * Parts of values the data holds (so that the filter matches), a whole one, the whole of an awkward one when the data
 * has one (sampling at random would step around it), and a term that matches nothing.
 */
function terms(values: string[], random: Random): string[] {
  const picked = random.sample(values, 3);
  const edge = random.pick(values.filter(awkward));
  return [
    ...picked.map((value) => random.substring(value)),
    ...picked.slice(0, 1),
    ...(edge === undefined ? [] : [edge]),
    `zz-no-match-${random.int(1e6)}`,
  ];
}

/** A case-insensitive substring filter on one text of a subscriber. */
function substringFilter(meaning: string, text: (subscriber: Subscriber) => string | null) {
  return {
    kind: "filter" as const,
    meaning,
    cost: "expensive" as const,
    matches: (subscriber: Subscriber, term: string) => containsIgnoringCase(text(subscriber), term),
    samples: (data: ModelData, random: Random) => terms(present(live(data).map(text)), random),
    variants: termVariants,
  };
}

/**
 * The `_id`s of subscribers that are not live: deleted ones, and, where only live ones were read (a black box never
 * lists the deleted), those notifications were sent to and no search returns.
 */
function notLive(data: ModelData): string[] {
  const listed = new Set(live(data).map((s) => s._id));
  const deleted = data.subscribers.filter((s) => s.deleted).map((s) => s._id);
  const unlisted = data.notifications.map((n) => n._subscriberId).filter((id) => !listed.has(id));
  return [...new Set([...deleted, ...unlisted])];
}

/** The first and last instants the `updatedAt` form carries (0000-01-01 and 9999-12-31, in milliseconds). */
const carriedRange = [Date.parse("0000-01-01T00:00:00.000Z"), Date.parse("9999-12-31T23:59:59.999Z")] as const;

/**
 * A cursor: the `_id`s of subscribers at both ends and in the middle, one not live, one no subscriber has, and a
 * place carried in an `updatedAt` order (what `next` is there): a subscriber's own, one it has left (a minute
 * before its `updatedAt`, as though it was patched since the cursor was read), and times at either end of the
 * years the form carries and one millisecond past each (a cursor edited by hand, or a client's clock gone wrong).
 */
function cursor(meaning: string) {
  return {
    kind: "cursor" as const,
    meaning,
    cost: "cheap" as const,
    refuse: subscriberCursorProblem,
    samples: (data: ModelData, random: Random) => {
      const rows = live(data);
      const ids = rows.map((s) => s._id);
      const carried = random.sample(rows, 1).flatMap((s) => {
        const earlier = new Date(Date.parse(s.updatedAt) - 60_000).toISOString();
        return [subscriberCursorOf(s, "updatedAt"), subscriberCursorOf({ ...s, updatedAt: earlier }, "updatedAt")];
      });
      const edges = random
        .sample(rows, 1)
        .flatMap((s) => [carriedRange[0] - 1, ...carriedRange, carriedRange[1] + 1].map((ms) => `${s._id}_${ms}`));
      return [...random.sample(ids, 3), ...random.sample(notLive(data), 1), unknownId, ...carried, ...edges];
    },
  };
}

export const searchSubscribersInputs = {
  query: {
    after: cursor(
      "Rows past the place the cursor marks in the page's order: its subscriber's, or the `updatedAt` it carries.",
    ),
    before: cursor("Rows just ahead of the place the cursor marks, in the page's order."),
    limit: {
      kind: "page",
      meaning: "How many subscribers a page holds.",
      cost: "cheap",
      samples: () => [minLimit, 2, 3, maxLimit],
    },
    orderDirection: {
      kind: "order",
      meaning: "Ascending or descending.",
      cost: "cheap",
      samples: () => ["ASC", "DESC"],
    },
    orderBy: {
      kind: "order",
      meaning: "The field rows are ordered by, `_id` breaking ties.",
      cost: "cheap",
      samples: () => ["_id", "createdAt", "updatedAt"],
    },
    includeCursor: {
      kind: "cursor",
      meaning: "Whether the cursor's own row is on the page.",
      cost: "cheap",
      samples: () => [true, false],
    },
    email: substringFilter("Subscribers whose e-mail contains the text, ignoring case.", (s) => s.email),
    name: substringFilter(
      "Subscribers whose `firstName + ' ' + lastName` contains the text, ignoring case.",
      searchedName,
    ),
    phone: substringFilter("Subscribers whose phone contains the text, ignoring case.", (s) => s.phone),
    subscriberId: {
      kind: "filter",
      meaning: "The subscriber with exactly this `subscriberId` (case and all).",
      cost: "cheap",
      matches: (subscriber: Subscriber, subscriberId: string) => subscriber.subscriberId === subscriberId,
      samples: (data: ModelData, random: Random) => [
        ...random.sample(
          live(data).map((s) => s.subscriberId),
          2,
        ),
        ...random.sample(
          data.subscribers.filter((s) => s.deleted).map((s) => s.subscriberId),
          1,
        ),
        "nobody",
      ],
      variants: termVariants,
    },
  },
  path: {},
  body: {},
  refusals: [
    ({ query }: RequestInputs<"searchSubscribers">) =>
      query.after !== undefined && query.before !== undefined
        ? { status: 400, example: "BadRequestBothCursors", message: messages.bothCursors }
        : undefined,
  ],
} satisfies OperationInputs<"searchSubscribers">;
