import { describe, expect, it } from "vitest";
import { operationIds, operationTable } from "../../generated/operations.js";
import { findOperation, type JsonObject, listSpecOperations, parametersOf, resolve, spec } from "../support/spec.js";

const expected = [
  { operationId: "getNotification", method: "get", path: "/v1/notifications/{notificationId}", tag: "Notifications" },
  { operationId: "listNotifications", method: "get", path: "/v1/notifications", tag: "Notifications" },
  { operationId: "patchSubscriber", method: "patch", path: "/v2/subscribers/{subscriberId}", tag: "Subscribers" },
  { operationId: "searchSubscribers", method: "get", path: "/v2/subscribers", tag: "Subscribers" },
];

/** What the server's middleware can answer on any operation, whatever its handler does: each must be declared. */
const everyOperationAnswers = [400, 401, 414, 422, 429, 500, 503];

/** The errors the seed's operations declare beyond those. */
const seedErrors: Partial<Record<string, number[]>> = {
  patchSubscriber: [404, 409, 413, 415],
  listNotifications: [402],
  getNotification: [404],
};

describe("the bundled spec", () => {
  it("is OpenAPI 3.1 and holds the four operations of the seed", () => {
    expect(spec.openapi).toBe("3.1.0");
    const found = listSpecOperations()
      .map(({ method, path, operation }) => ({
        operationId: operation.operationId,
        method,
        path,
        tag: (operation.tags as string[])[0],
      }))
      .sort((a, b) => String(a.operationId).localeCompare(String(b.operationId)));
    expect(found).toEqual(expect.arrayContaining(expected));
  });

  it("generates an operation table that matches it", () => {
    const inSpec = listSpecOperations()
      .map(({ method, path, operation }) => ({ operationId: operation.operationId, method, path }))
      .sort((a, b) => String(a.operationId).localeCompare(String(b.operationId)));
    expect(
      Object.values(operationTable).map(({ operationId, method, path }) => ({ operationId, method, path })),
    ).toEqual(inSpec);
    expect(operationTable.patchSubscriber.expressPath).toBe("/v2/subscribers/:subscriberId");
    expect(operationTable.patchSubscriber.hasBody).toBe(true);
  });

  it("requires the ApiKey Authorization header on every operation", () => {
    const schemes = (spec.components as JsonObject).securitySchemes as JsonObject;
    expect(schemes.secretKey).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(spec.security).toEqual([{ secretKey: [] }]);
    for (const { operation } of listSpecOperations()) expect(operation.security).toBeUndefined();
  });

  it.each(operationIds)("declares every documented error of %s as JSON with named examples", (id) => {
    const responses = findOperation(id).operation.responses as JsonObject;
    const statuses = Object.keys(responses)
      .map(Number)
      .filter((status) => status >= 400);
    expect(statuses).toEqual(expect.arrayContaining([...everyOperationAnswers, ...(seedErrors[id] ?? [])]));
    expect([...statuses].sort()).toEqual(operationTable[id].statuses.filter((status) => status >= 400));
    for (const status of statuses) {
      const response = resolve(responses[String(status)]);
      const media = (response.content as JsonObject)["application/json"] as JsonObject;
      expect(Object.keys(media)).toContain("examples");
      const schema = media.schema as JsonObject;
      if (status === 422) {
        expect(schema.$ref).toBe("#/components/schemas/ValidationErrorDto");
      } else {
        // ErrorDto with its statusCode pinned to the status, so that clients tell error bodies apart by it.
        const [shared, pinned] = schema.allOf as JsonObject[];
        expect(shared?.$ref).toBe("#/components/schemas/ErrorDto");
        expect(pinned).toMatchObject({ required: ["statusCode"], properties: { statusCode: { const: status } } });
      }
      for (const example of Object.values(media.examples as JsonObject)) {
        expect(resolve<{ value: { statusCode: number } }>(example).value.statusCode).toBe(status);
      }
    }
  });

  it("accepts an idempotency-key header of at most 255 characters on every operation", () => {
    for (const { operation } of listSpecOperations()) {
      const header = parametersOf(String(operation.operationId)).find(
        (parameter) => parameter.in === "header" && parameter.name === "idempotency-key",
      );
      expect(header).toMatchObject({ required: false, schema: { maxLength: 255 } });
    }
  });

  it("declares the query limits of the seed and docs/decisions.md", () => {
    const query = (id: string, name: string) =>
      resolve(parametersOf(id).find((p) => p.in === "query" && p.name === name)?.schema);
    expect(query("searchSubscribers", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 10,
    });
    expect(query("searchSubscribers", "orderDirection")).toMatchObject({ enum: ["ASC", "DESC"], default: "DESC" });
    expect(query("searchSubscribers", "orderBy")).toMatchObject({ enum: ["_id", "createdAt", "updatedAt"] });
    expect(query("listNotifications", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 10,
    });
    expect(query("listNotifications", "page")).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    for (const name of ["channels", "templates", "emails", "subscriberIds", "severity"]) {
      expect(query("listNotifications", name)).toMatchObject({ type: "array", maxItems: expect.any(Number) });
    }
    const search = listSpecOperations().find(({ operation }) => operation.operationId === "listNotifications")
      ?.operation.parameters as JsonObject[];
    expect(search.map((p) => resolve(p)).find((p) => p.name === "search")?.deprecated).toBe(true);
  });
});
