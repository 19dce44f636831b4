import { allSubscribers, createClient, newIdempotencyKey, type Subscriber } from "@novu-query/contract";
import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import { type OperationId, operationTable } from "@novu-query/contract/operations";
import type { Notification, paths } from "@novu-query/contract/types";
import { describe, expectTypeOf, it } from "vitest";

describe("what the contract package exports, imported by its name as a consumer does", () => {
  it("types the client, the generated types, the operation table and the bundled spec", () => {
    expectTypeOf(allSubscribers).returns.toEqualTypeOf<AsyncGenerator<Subscriber>>();
    expectTypeOf(newIdempotencyKey).returns.toEqualTypeOf<string>();
    expectTypeOf<Notification["_id"]>().toEqualTypeOf<string>();
    // The typed paths are the operation table's, whatever operations the contract holds.
    expectTypeOf<keyof paths>().toEqualTypeOf<(typeof operationTable)[OperationId]["path"]>();
    expectTypeOf<"/v2/subscribers">().toMatchTypeOf<keyof paths>();
    expectTypeOf(operationTable.patchSubscriber.method).toEqualTypeOf<"patch">();
    expectTypeOf(spec.openapi).toBeString();
  });

  it("rejects a PATCH body field the contract does not have", () => {
    const api = createClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "any" });
    const path = { subscriberId: "user-1" };
    void (() => api.PATCH("/v2/subscribers/{subscriberId}", { params: { path }, body: { locale: "en" } }));
    void (() =>
      // @ts-expect-error `nope` is not a field of PatchSubscriberRequest
      api.PATCH("/v2/subscribers/{subscriberId}", { params: { path }, body: { locale: "en", nope: 1 } }));
  });
});
