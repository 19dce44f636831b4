import { describe, expect, it } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import { type JsonObject, listSpecOperations, pointerKey, resolve, spec } from "../support/spec.js";

interface ExampleCase {
  where: string;
  schemaPointer: string;
  value: unknown;
}

function mediaExamples(media: JsonObject, schemaPointer: string, where: string): ExampleCase[] {
  const named = Object.entries((media.examples as JsonObject | undefined) ?? {}).map(([name, example]) => ({
    where: `${where} example ${name}`,
    schemaPointer,
    value: resolve<{ value: unknown }>(example).value,
  }));
  return media.example === undefined ? named : [...named, { where, schemaPointer, value: media.example }];
}

function collectExamples(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const { method, path, operation } of listSpecOperations()) {
    const base = `/paths/${pointerKey(path)}/${method}`;
    const label = String(operation.operationId);
    for (const raw of operation.parameters as JsonObject[]) {
      const parameter = resolve(raw);
      const pointer = typeof raw.$ref === "string" ? `${raw.$ref.slice(1)}/schema` : undefined;
      if (pointer && parameter.example !== undefined) {
        cases.push({ where: `${label} parameter ${parameter.name}`, schemaPointer: pointer, value: parameter.example });
      }
    }
    const body = operation.requestBody as JsonObject | undefined;
    if (body) {
      const media = (body.content as JsonObject)["application/json"] as JsonObject;
      cases.push(...mediaExamples(media, `${base}/requestBody/content/application~1json/schema`, `${label} body`));
    }
    for (const [status, raw] of Object.entries(operation.responses as JsonObject)) {
      const responsePointer =
        typeof (raw as JsonObject).$ref === "string"
          ? String((raw as JsonObject).$ref).slice(1)
          : `${base}/responses/${status}`;
      const media = (resolve(raw).content as JsonObject)["application/json"] as JsonObject;
      cases.push(...mediaExamples(media, `${responsePointer}/content/application~1json/schema`, `${label} ${status}`));
    }
  }
  const schemas = (spec.components as JsonObject).schemas as Record<string, JsonObject>;
  for (const [name, schema] of Object.entries(schemas)) {
    for (const value of (schema.examples as unknown[] | undefined) ?? []) {
      cases.push({ where: `schema ${name}`, schemaPointer: `/components/schemas/${name}`, value });
    }
  }
  return cases;
}

const cases = collectExamples();
const ajv = createSpecAjv();

describe("examples in the spec", () => {
  it("cover every operation's success and error responses", () => {
    for (const { operation } of listSpecOperations()) {
      for (const status of Object.keys(operation.responses as JsonObject)) {
        expect(cases.some((c) => c.where.startsWith(`${operation.operationId} ${status} example`))).toBe(true);
      }
    }
    expect(cases.length).toBeGreaterThan(40);
  });

  it.each(cases.map((c) => [c.where, c] as const))("%s validates against its schema", (_where, example) => {
    const validate = validatorAt(ajv, example.schemaPointer);
    const valid = validate(example.value);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("are consistent with each other (ids that refer to records agree)", () => {
    const examples = (spec.components as JsonObject).examples as Record<string, { value: JsonObject }>;
    const notification = examples.NotificationCommentDigest?.value as JsonObject;
    const subscriber = examples.SubscriberMayaPatel?.value as JsonObject;
    expect(notification._subscriberId).toBe(subscriber._id);
    expect((notification.subscriber as JsonObject).subscriberId).toBe(subscriber.subscriberId);
    expect((notification.template as JsonObject)._id).toBe(notification._templateId);
    expect(notification._environmentId).toBe(subscriber._environmentId);
    const page = examples.ListNotificationsFirstPage?.value as { data: JsonObject[] };
    expect(page.data[0]).toEqual(notification);
    for (const item of page.data) {
      expect((item.subscriber as JsonObject)._id).toBe(item._subscriberId);
    }
    const search = examples.SearchSubscribersFirstPage?.value as { data: JsonObject[]; next: string };
    expect(search.data[1]).toEqual(subscriber);
    expect(search.next).toBe(search.data.at(-1)?._id);
  });

  it("are rejected by the validator when they break the schema (the check can fail)", () => {
    const validate = validatorAt(ajv, "/components/schemas/Notification");
    const notification = (spec.components as JsonObject).examples as Record<string, { value: JsonObject }>;
    const broken = { ...notification.NotificationCommentDigest?.value, severity: "urgent" };
    expect(validate(broken)).toBe(false);
  });
});
