/**
 * The inputs' declarations (contract/model/inputs/) against the spec, in words: every input of the spec is declared,
 * nothing the spec lacks is, every operation the reference server implements has declarations, and every value the
 * declarations send (samples and their variants) is one the spec accepts. The typecheck says the first two at the
 * declaration's line; this says them for whoever reads the test report, naming each input and the file to edit.
 */
import { createFactories } from "@novu-query/contract/factories";
import { declaredInputs, declaresInputs, inputs, Random } from "@novu-query/contract/model";
import { NotImplementedError } from "@novu-query/express";
import { describe, expect, it } from "vitest";
import { operationCheck } from "../../contract/msw/spec.js";
import { type OperationId, operationIds, operationTable } from "../../generated/operations.js";
import { handlers } from "../../server/handlers/index.js";
import { type JsonObject, resolve, spec } from "../support/spec.js";

const fileOf = (id: string) => `contract/model/inputs/${id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;

/** The spec's inputs of an operation: `query.limit`, `path.subscriberId`, `body.email`. */
function specInputs(id: OperationId): string[] {
  const { path, method } = operationTable[id];
  const operation = resolve((spec.paths as JsonObject)[path] as JsonObject)[method] as JsonObject;
  const parameters = ((operation.parameters ?? []) as JsonObject[])
    .map((parameter) => resolve(parameter))
    .filter((parameter) => parameter.in === "query" || parameter.in === "path")
    .map((parameter) => `${parameter.in}.${parameter.name}`);
  const body = operation.requestBody
    ? resolve(
        ((resolve(operation.requestBody as JsonObject).content as JsonObject)["application/json"] as JsonObject)
          .schema as JsonObject,
      )
    : undefined;
  const fields = Object.keys((body?.properties ?? {}) as JsonObject).map((name) => `body.${name}`);
  return [...parameters, ...fields].sort();
}

/** What is wrong between the spec and the declarations of an operation, in words; empty when they agree. */
function inputDifferences(id: OperationId, declared: string[]): string[] {
  const fromSpec = specInputs(id);
  return [
    ...fromSpec
      .filter((input) => !declared.includes(input))
      .map((input) => `${id}: the spec has ${input}, which ${fileOf(id)} does not declare`),
    ...declared
      .filter((input) => !fromSpec.includes(input))
      .map((input) => `${id}: ${fileOf(id)} declares ${input}, which the spec does not have`),
  ];
}

const declaredNames = (id: OperationId) =>
  declaresInputs(id) ? declaredInputs(id).map(([place, name]) => `${place}.${name}`) : [];

describe("the inputs' declarations", () => {
  it("cover every operation the reference server implements (a scaffolded stub answers 501 and needs none)", async () => {
    const implemented: string[] = [];
    for (const [id, handler] of Object.entries(handlers)) {
      const stub = await Promise.resolve()
        .then(() => (handler as (input: unknown, context: unknown) => unknown)({ query: {}, path: {} }, {}))
        .then(
          () => false,
          (error) => error instanceof NotImplementedError,
        );
      if (!stub) implemented.push(id);
    }
    expect(implemented.filter((id) => !declaresInputs(id as OperationId))).toEqual([]);
    expect(implemented.length).toBeGreaterThan(0);
  });

  it.each(operationIds.filter(declaresInputs))("declare exactly the inputs of %s", (id) => {
    expect(inputDifferences(id, declaredNames(id))).toEqual([]);
  });

  it("would name an input the spec gains and one it loses", () => {
    const declared = declaredNames("listNotifications");
    expect(
      inputDifferences(
        "listNotifications",
        declared.filter((input) => input !== "query.channels"),
      ),
    ).toEqual([
      "listNotifications: the spec has query.channels, which contract/model/inputs/list-notifications.ts does not declare",
    ]);
    expect(inputDifferences("listNotifications", [...declared, "query.colour"])).toEqual([
      "listNotifications: contract/model/inputs/list-notifications.ts declares query.colour, which the spec does not have",
    ]);
  });

  describe.each([1, 2, 3])("with the factories' data of seed %i", (seed) => {
    const make = createFactories({ seed, now: "2026-11-20T00:00:00.000Z" });
    const subscribers = make.subscribers(30);
    const data = { subscribers, notifications: make.notifications(60, undefined, subscribers) };

    it.each(operationIds.filter(declaresInputs))(
      "send only values the spec accepts for %s (samples and variants)",
      (id) => {
        const random = new Random(seed);
        const check = operationCheck(id);
        const refused: string[] = [];
        let sent = 0;
        for (const [place, name, input] of declaredInputs(id)) {
          const declaration = (inputs[id] as unknown as Record<string, Record<string, typeof input>>)[place]?.[name] as
            | { samples(d: typeof data, r: Random): unknown[]; variants?(v: unknown, r: Random): unknown[] }
            | undefined;
          const samples = declaration?.samples(data, random) ?? [];
          expect(samples.length, `${id} ${place}.${name} has samples`).toBeGreaterThan(0);
          for (const value of samples.flatMap((sample) => [
            sample,
            ...(declaration?.variants?.(sample, random) ?? []),
          ])) {
            sent += 1;
            const accepted =
              place === "body"
                ? check.body?.({ [name]: value })
                : check.parameters
                    .find((parameter) => parameter.where === place && parameter.name === name)
                    ?.validate(Array.isArray(value) ? [...value] : typeof value === "string" ? value : String(value));
            if (!accepted) refused.push(`${place}.${name} = ${JSON.stringify(value)}`);
          }
        }
        expect(refused, `values of ${fileOf(id)} the spec refuses`).toEqual([]);
        expect(sent).toBeGreaterThan(0);
      },
    );
  });
});
