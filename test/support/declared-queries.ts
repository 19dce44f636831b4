/**
 * Queries drawn from the inputs' declarations (contract/model/inputs/), for property tests: each input's samples over
 * the data and their variants, a few filters at once with paging and order. Nothing here names a parameter: an input
 * the spec gains is drawn as soon as it is declared.
 */
import { type DeclaredOperation, declaredInputs, inputs, type ModelData, Random } from "@novu-query/contract/model";
import fc from "fast-check";

type Declaration = {
  kind: string;
  samples(data: ModelData, random: Random): unknown[];
  variants?(value: unknown, random: Random): unknown[];
};

/** Every value the declaration sends over each data set (samples, then their variants), each once. */
export function declaredValues(declaration: Declaration, data: ModelData[], seed: number): unknown[] {
  const random = new Random(seed);
  const values = data
    .flatMap((each) => declaration.samples(each, random))
    .flatMap((sample) => [sample, ...(declaration.variants?.(sample, random) ?? [])]);
  return [...new Map(values.map((value) => [JSON.stringify(value), value])).values()];
}

/** At most `max` of the arbitraries' keys, each with a value of its arbitrary. */
export function someOf(
  arbitraries: Record<string, fc.Arbitrary<unknown>>,
  max: number,
): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(arbitraries);
  return fc
    .subarray(keys, { maxLength: Math.min(max, keys.length) })
    .chain((chosen) =>
      fc.record(Object.fromEntries(chosen.map((key) => [key, arbitraries[key] as fc.Arbitrary<unknown>]))),
    );
}

/**
 * An input's values, those of the queried data set (the first) three times as often as the others' alone: a value
 * from another environment selects nothing, so with two filters drawn evenly from two data sets most pages were
 * empty (20 to 33 of 120 answers had rows), and a property over empty pages proves little.
 */
function queriedFirst(declaration: Declaration, data: ModelData[], seed: number): fc.Arbitrary<unknown> | undefined {
  const mine = declaredValues(declaration, data.slice(0, 1), seed);
  const seen = new Set(mine.map((value) => JSON.stringify(value)));
  const others = declaredValues(declaration, data.slice(1), seed).filter((value) => !seen.has(JSON.stringify(value)));
  const weighted = [
    ...(mine.length > 0 ? [{ arbitrary: fc.constantFrom(...mine), weight: 3 }] : []),
    ...(others.length > 0 ? [{ arbitrary: fc.constantFrom(...others), weight: 1 }] : []),
  ];
  return weighted.length === 0 ? undefined : fc.oneof(...weighted);
}

/**
 * Queries of an operation over `data` (the first data set is the one queried; the others' values select nothing in
 * it, or name another environment's rows): up to `maxFilters` filters, up to two cursor inputs, one bound of the
 * window, any of the paging and order inputs. Some are refused by the model (both cursors, a reversed window): callers skip those.
 */
export function declaredQueries(
  id: DeclaredOperation,
  data: ModelData[],
  { maxFilters = 2, seed = 1 }: { maxFilters?: number; seed?: number } = {},
): fc.Arbitrary<Record<string, unknown>> {
  const byKind = new Map<string, Record<string, fc.Arbitrary<unknown>>>();
  for (const [place, name] of declaredInputs(id)) {
    if (place !== "query") continue;
    const declaration = (inputs[id].query as unknown as Record<string, Declaration>)[name] as Declaration;
    const arbitrary = queriedFirst(declaration, data, seed);
    if (arbitrary === undefined) continue;
    const group = declaration.kind === "subscriber-filter" ? "filter" : declaration.kind;
    byKind.set(group, { ...byKind.get(group), [name]: arbitrary });
  }
  const group = (kind: string) => byKind.get(kind) ?? {};
  return fc
    .tuple(
      someOf(group("filter"), maxFilters),
      // Two cursor inputs at most: a cursor with whether its row is included, or both cursors (which the model refuses).
      someOf(group("cursor"), 2),
      // One bound of the window at a time mostly: two drawn apart from each other leave few rows between them.
      someOf(group("window"), 1),
      fc.record({ ...group("page"), ...group("order") }, { requiredKeys: [] }),
    )
    .map(([filters, cursor, window, rest]) => ({ ...filters, ...cursor, ...window, ...rest }));
}
