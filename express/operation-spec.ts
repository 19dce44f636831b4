/**
 * The bundled spec cut down to one operation: its path alone and the components it reaches. What each operation's
 * validator is given (router.ts, D72).
 */
import { resolveRef, segmentsOf } from "@novu-query/contract/json-pointer";
import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import { type OperationId, operationTable } from "@novu-query/contract/operations";

type Components = Record<string, Record<string, unknown>>;

/**
 * The components that a part of the spec refers to, and those that they refer to in turn (every `$ref` of the bundled
 * spec is `#/components/<kind>/<name>`), with the security schemes, which operations name without a `$ref`.
 */
export function componentsReachedFrom(root: unknown): Components {
  const all = spec.components as Components;
  const kept: Components = { securitySchemes: all.securitySchemes ?? {} };
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key !== "$ref" || typeof value !== "string") {
        walk(value);
        continue;
      }
      const [, kind, name] = segmentsOf(value) as [string, string, string];
      kept[kind] ??= {};
      const ofKind = kept[kind];
      if (name in ofKind) continue;
      const target = all[kind]?.[name];
      if (target === undefined) throw new Error(`the bundled spec's ${value} names nothing`);
      ofKind[name] = target;
      walk(target);
    }
  };
  walk(root);
  return kept;
}

/** A path item with each parameter that is a `$ref` (the path's own, its operations') replaced by the one it names. */
export function parametersInPlace(pathItem: Record<string, unknown>): Record<string, unknown> {
  const inPlace = (parameter: unknown) => {
    const ref = (parameter as { $ref?: unknown }).$ref;
    if (typeof ref !== "string") return parameter;
    const target = ref.startsWith("#/components/parameters/") ? resolveRef<unknown>(spec, parameter) : undefined;
    if (target === undefined) throw new Error(`the bundled spec's ${ref} names no parameter`);
    return target;
  };
  return Object.fromEntries(
    Object.entries(pathItem).map(([method, operation]) => {
      // The path's own parameters, which its operations share.
      if (method === "parameters" && Array.isArray(operation)) return [method, operation.map(inPlace)];
      const parameters = (operation as { parameters?: unknown[] }).parameters;
      return [method, parameters ? { ...(operation as object), parameters: parameters.map(inPlace) } : operation];
    }),
  );
}

/**
 * The spec with one operation's path alone and the components it reaches: what one operation's validator is given
 * (a copy of its own, as the validator annotates the document it is given). Its parameters are in place rather than
 * `$ref`s (D74): the validator looks each declared parameter up again on every request, by a regular expression over
 * its `$ref`.
 */
export function specOfOperation(id: OperationId): typeof spec {
  const path = operationTable[id].path as keyof typeof spec.paths;
  const paths = { [path]: parametersInPlace(spec.paths[path]) };
  return structuredClone({ ...spec, paths, components: componentsReachedFrom(paths) }) as unknown as typeof spec;
}
