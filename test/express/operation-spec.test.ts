import { valueAt } from "@novu-query/contract/json-pointer";
import { operationIds, operationTable } from "@novu-query/contract/operations";
import { describe, expect, it } from "vitest";
import { componentsReachedFrom, parametersInPlace, specOfOperation } from "../../express/operation-spec.js";
import spec from "../../generated/openapi.json" with { type: "json" };

/** Every `$ref` in a document. */
function refsIn(node: unknown): string[] {
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" && typeof value === "string" ? [value] : refsIn(value),
  );
}

const namesOf = (components: Record<string, Record<string, unknown>>) =>
  Object.entries(components).flatMap(([kind, named]) => Object.keys(named).map((name) => `${kind}/${name}`));

describe("the spec each operation's validator is given (D72)", () => {
  it.each(operationIds)("%s: its own path alone, every $ref in it naming something in it", (id) => {
    const one = specOfOperation(id);
    const path = operationTable[id].path as keyof typeof spec.paths;
    expect(Object.keys(one.paths)).toEqual([path]);
    // The operation as the spec declares it, each parameter in place of the $ref that names it (D74).
    const declared = (spec.paths[path] as Record<string, { parameters: { $ref: string }[] }>)[
      operationTable[id].method
    ];
    const given = (one.paths[path] as Record<string, { parameters: unknown[] }>)[operationTable[id].method];
    expect(given?.parameters).toEqual(declared?.parameters.map((parameter) => valueAt(spec, parameter.$ref)));
    expect({ ...given, parameters: [] }).toEqual({ ...declared, parameters: [] });
    expect(refsIn(one).filter((ref) => valueAt(one, ref) === undefined)).toEqual([]);
    expect(one.components.securitySchemes).toEqual(spec.components.securitySchemes);
  });

  it("keeps only the components its operation reaches, and each operation's own", () => {
    const list = namesOf(specOfOperation("listNotifications").components);
    const patch = namesOf(specOfOperation("patchSubscriber").components);
    expect(list).toContain("schemas/Notification");
    expect(list).not.toContain("schemas/PatchSubscriberRequest");
    expect(patch).toContain("schemas/PatchSubscriberRequest");
    expect(patch).not.toContain("schemas/Notification");
    // What the four reach together is what the spec's paths reach: nothing a path uses is left out of every copy.
    const together = new Set(operationIds.flatMap((id) => namesOf(specOfOperation(id).components)));
    const pathsInPlace = Object.fromEntries(
      Object.entries(spec.paths).map(([path, item]) => [path, parametersInPlace(item)]),
    );
    expect(together).toEqual(new Set(namesOf(componentsReachedFrom(pathsInPlace))));
  });

  it("gives each validator a copy of its own (the validator annotates the document it is given)", () => {
    const first = specOfOperation("getNotification");
    const second = specOfOperation("getNotification");
    expect(second).toEqual(first);
    expect(second.components.schemas.Notification).not.toBe(first.components.schemas.Notification);
    expect(first.components.schemas.Notification).not.toBe(spec.components.schemas.Notification);
    expect(first.paths).not.toBe(spec.paths);
  });

  it("says which $ref names nothing, rather than handing a validator a spec it cannot load", () => {
    expect(() => componentsReachedFrom({ schema: { $ref: "#/components/schemas/Missing" } })).toThrow(
      "the bundled spec's #/components/schemas/Missing names nothing",
    );
    expect(() => parametersInPlace({ get: { parameters: [{ $ref: "#/components/parameters/Missing" }] } })).toThrow(
      "the bundled spec's #/components/parameters/Missing names no parameter",
    );
    expect(() => parametersInPlace({ get: { parameters: [{ $ref: "#/components/schemas/ObjectId" }] } })).toThrow(
      "the bundled spec's #/components/schemas/ObjectId names no parameter",
    );
  });

  it("puts a path's own parameters in place too, and leaves one declared in place as it is", () => {
    const own = { name: "x", in: "query", schema: { type: "string" } };
    const item = parametersInPlace({
      parameters: [{ $ref: "#/components/parameters/SearchLimit" }],
      get: { parameters: [own], responses: {} },
    });
    expect(item).toEqual({
      parameters: [spec.components.parameters.SearchLimit],
      get: { parameters: [own], responses: {} },
    });
  });
});
