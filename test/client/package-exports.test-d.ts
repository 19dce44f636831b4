import { allSubscribers, createClient, type Subscriber } from "novu-query-contract";
import { createClient as createClientAgain } from "novu-query-contract/client";
import spec from "novu-query-contract/openapi.json" with { type: "json" };
import { operationTable } from "novu-query-contract/operations";
import type { Notification, paths } from "novu-query-contract/types";
import { describe, expectTypeOf, it } from "vitest";

describe("what the package exports, imported by its name as a consumer does", () => {
  it("types the client, the generated types, the operation table and the bundled spec", () => {
    expectTypeOf(createClient).toEqualTypeOf(createClientAgain);
    expectTypeOf(allSubscribers).returns.toEqualTypeOf<AsyncGenerator<Subscriber>>();
    expectTypeOf<Notification["_id"]>().toEqualTypeOf<string>();
    expectTypeOf<keyof paths>().toEqualTypeOf<
      "/v2/subscribers" | "/v2/subscribers/{subscriberId}" | "/v1/notifications" | "/v1/notifications/{notificationId}"
    >();
    expectTypeOf(operationTable.patchSubscriber.method).toEqualTypeOf<"patch">();
    expectTypeOf(spec.openapi).toBeString();
  });
});
