/**
 * Rules generated from the inputs' declarations (contract/model/inputs/): for every input of the search and the
 * list, the values clients send for it, drawn from the implementation's own data with each of the run's seeds, and
 * every other form of each (date-time offsets and the like, case and prefix variants of exact filters, padded and
 * case-flipped terms, one and repeated list values), each compared with the model. Nothing here names a parameter:
 * an input the contract gains is sent as soon as it is declared.
 */
import type { NotificationListQuery, SubscriberSearchQuery } from "@novu-query/contract/model";
import { type DeclaredOperation, declaredInputs, inputs, type ModelData, Random } from "@novu-query/contract/model";
import { operationTable } from "@novu-query/contract/operations";
import { type ConformanceContext, type Rule, RuleFailure } from "./context.js";
import { atLastPage, expectList, expectSearch, type Snapshot, snapshotOf } from "./oracle.js";
import { seedsOf } from "./patch-rules.js";
import { acceptsQueryValue } from "./spec-validator.js";

interface Declaration {
  kind: string;
  meaning: string;
  samples(data: ModelData, random: Random): unknown[];
  variants?(value: unknown, random: Random): unknown[];
}

/** The query inputs of an operation, with their declarations. */
function queryInputs(id: DeclaredOperation): [string, Declaration][] {
  const declared = inputs[id].query as unknown as Record<string, Declaration>;
  return declaredInputs(id)
    .filter(([place]) => place === "query")
    .map(([, name]) => [name, declared[name] as Declaration]);
}

/** A seed of its own for each input and run seed, so that two inputs do not draw alike. */
function randomFor(seed: number, name: string): Random {
  let hash = seed;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return new Random(hash);
}

/**
 * Every value of an input over the snapshot, for every seed: its samples, then their variants (unless `variants` is
 * false), each once; only those the contract accepts (a value read from stored data the contract would refuse is not
 * sent). The samples are the same either way: each seed's are drawn before their variants.
 */
function valuesOf(
  context: ConformanceContext,
  snapshot: Snapshot,
  id: DeclaredOperation,
  name: string,
  declaration: Declaration,
  { variants = true }: { variants?: boolean } = {},
): unknown[] {
  const { path, method } = operationTable[id];
  const values = seedsOf(context).flatMap((seed) => {
    const random = randomFor(seed, name);
    return declaration
      .samples(snapshot, random)
      .flatMap((sample) => [sample, ...((variants && declaration.variants?.(sample, random)) || [])]);
  });
  const distinct = [...new Map(values.map((value) => [JSON.stringify(value), value])).values()];
  return distinct.filter((value) => acceptsQueryValue(path, method, name, value));
}

/** A search at the default limit, and, over a complete snapshot, at limit 3 following `next` and `previous`. */
export async function checkSearch(context: ConformanceContext, snapshot: Snapshot, query: SubscriberSearchQuery) {
  await expectSearch(context, snapshot, query);
  if (!snapshot.subscribersComplete) return;
  const first = await expectSearch(context, snapshot, { ...query, limit: 3 });
  if (!first.next) return;
  const second = await expectSearch(context, snapshot, { ...query, limit: 3, after: first.next });
  if (second.previous) await expectSearch(context, snapshot, { ...query, limit: 3, before: second.previous });
}

/** A list query, and its second page of two. */
async function checkList(context: ConformanceContext, snapshot: Snapshot, query: NotificationListQuery) {
  await expectList(context, snapshot, query);
  await expectList(context, snapshot, { ...query, limit: 2, page: 1 });
}

/** Subscriber filters of the list need every live subscriber to compute: over a partial snapshot they are not run. */
export async function subscriberFilterSnapshot(context: ConformanceContext): Promise<Snapshot> {
  const snapshot = await snapshotOf(context);
  if (!snapshot.subscribersComplete) {
    throw new RuleFailure(
      `not checked: the environment has more than ${snapshot.subscribers.length} subscribers (raise readLimit)`,
    );
  }
  return snapshot;
}

function filterRules(id: "searchSubscribers" | "listNotifications", prefix: string): Rule[] {
  return queryInputs(id)
    .filter(([, declaration]) => declaration.kind === "filter" || declaration.kind === "subscriber-filter")
    .map(([name, declaration]) => ({
      id: `${prefix}.filter.${name}`,
      level: "behaviour",
      text: `${name}: ${declaration.meaning} As the model says, for the values clients send (drawn from the data, and their other forms)`,
      async run(c) {
        const snapshot = await (declaration.kind === "subscriber-filter" ? subscriberFilterSnapshot(c) : snapshotOf(c));
        const values = valuesOf(c, snapshot, id, name, declaration);
        if (values.length === 0) throw new RuleFailure(`the data gives no value of ${name} to send`);
        for (const value of values) {
          if (id === "searchSubscribers") await checkSearch(c, snapshot, { [name]: value } as SubscriberSearchQuery);
          else await checkList(c, snapshot, { [name]: value } as NotificationListQuery);
        }
        c.note(`${values.length} values of ${name}`);
      },
    }));
}

/** Every combination of the operation's order inputs' values (`orderBy` × `orderDirection`), or none. */
function orderCombinations(context: ConformanceContext, snapshot: Snapshot, id: DeclaredOperation) {
  let combinations: Record<string, unknown>[] = [];
  for (const [name, declaration] of queryInputs(id).filter(([, d]) => d.kind === "order")) {
    const values = valuesOf(context, snapshot, id, name, declaration, { variants: false });
    combinations = (combinations.length ? combinations : [{}]).flatMap((combination) =>
      values.map((value) => ({ ...combination, [name]: value })),
    );
  }
  return combinations;
}

/**
 * The inputs of one kind, each value alone, and each sample also with a filter of the operation drawn beside it. A
 * sample's other forms (the date-times' offsets and spellings) are sent alone: each names the sample's value, which
 * the sample itself already sends beside the filters (two fifths of the requests of sending every form with each).
 * A cursor is also sent in every order: what it marks depends on the order (the time it carries counts in
 * `updatedAt` order only), and sent alone it is read in the default order.
 */
function kindRule(id: "searchSubscribers" | "listNotifications", kind: string, rule: Pick<Rule, "id" | "text">): Rule {
  return {
    ...rule,
    level: "behaviour",
    async run(c) {
      const snapshot = await snapshotOf(c);
      const [filterName, filter] = queryInputs(id).find(([, d]) => d.kind === "filter") ?? [];
      const orders = kind === "cursor" ? orderCombinations(c, snapshot, id) : [];
      let sent = 0;
      for (const [name, declaration] of queryInputs(id).filter(([, d]) => d.kind === kind)) {
        const filters = filter && filterName ? valuesOf(c, snapshot, id, filterName, filter).slice(0, 2) : [];
        const samples = new Set(
          valuesOf(c, snapshot, id, name, declaration, { variants: false }).map((value) => JSON.stringify(value)),
        );
        for (const value of valuesOf(c, snapshot, id, name, declaration)) {
          for (const query of [
            { [name]: value },
            ...(samples.has(JSON.stringify(value))
              ? filters.map((f) => ({ [name]: value, [filterName as string]: f }))
              : []),
            ...orders.map((order) => ({ [name]: value, ...order })),
          ]) {
            if (id === "searchSubscribers") await expectSearch(c, snapshot, query as SubscriberSearchQuery);
            else if (kind === "window")
              await expectList(c, snapshot, atLastPage(snapshot, query as NotificationListQuery));
            else await expectList(c, snapshot, query as NotificationListQuery);
            sent += 1;
          }
        }
      }
      if (sent === 0) throw new RuleFailure(`the contract declares no ${kind} input here`);
      c.note(`${sent} queries`);
    },
  };
}

export const inputRules: Rule[] = [
  ...filterRules("searchSubscribers", "search"),
  kindRule("searchSubscribers", "cursor", {
    id: "search.cursor.values",
    text: "Cursors clients send (rows at both ends and in the middle, a deleted subscriber's, one no subscriber has, places carried in `updatedAt` order, times at the ends of the years they may carry), alone, with a filter their row may not pass and in every order, as the model says",
  }),
  kindRule("searchSubscribers", "page", {
    id: "search.limit.values",
    text: "limit at its minimum, its maximum and between, alone and with a filter, as the model says",
  }),
  ...filterRules("listNotifications", "list"),
  kindRule("listNotifications", "page", {
    id: "list.page.values",
    text: "page and limit (the minimum, the maximum and between), alone and with a filter, as the model says",
  }),
  kindRule("listNotifications", "window", {
    id: "list.dates.forms",
    text: "after and before in every form the date-time format admits (offsets, a lower-case t and z, a space, more fraction digits, 23:59:60), each the instant it names, as the model says",
  }),
];
