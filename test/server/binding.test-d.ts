import { describe, expectTypeOf, it } from "vitest";
import type { OperationId } from "../../generated/operations.js";
import type { Subscriber } from "../../generated/schema.js";
import type { Handler, HandlerInput, HandlerResult, Handlers } from "../../server/handler-types.js";
import { handlers } from "../../server/handlers/index.js";

declare const subscriber: Subscriber;
declare const get: Handler<"getNotification">;
/** One handler per operation of the operation table, whatever operations it holds. */
declare const complete: { [K in OperationId]: Handler<K> };
declare const oneShort: Omit<typeof complete, "searchSubscribers">;

describe("the typed handler binding", () => {
  it("accepts exactly one handler per operation", () => {
    expectTypeOf(handlers).toMatchTypeOf<Handlers>();
    expectTypeOf(complete).toEqualTypeOf<Handlers>();
    // @ts-expect-error a missing handler does not compile
    const missing: Handlers = oneShort;
    const extra: Handlers = {
      ...complete,
      // @ts-expect-error a handler for an operation the spec does not have does not compile
      deleteSubscriber: get,
    };
    void [missing, extra];
  });

  it("types each handler's input from the spec", () => {
    expectTypeOf<HandlerInput<"patchSubscriber">["path"]>().toEqualTypeOf<{ subscriberId: string }>();
    expectTypeOf<HandlerInput<"patchSubscriber">["body"]["firstName"]>().toEqualTypeOf<string | null | undefined>();
    // Parameters with a default in the spec are always present.
    expectTypeOf<HandlerInput<"searchSubscribers">["query"]["limit"]>().toEqualTypeOf<number>();
    expectTypeOf<HandlerInput<"searchSubscribers">["query"]["orderBy"]>().toEqualTypeOf<
      "_id" | "createdAt" | "updatedAt"
    >();
    expectTypeOf<HandlerInput<"searchSubscribers">["query"]["after"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<HandlerInput<"listNotifications">["query"]["page"]>().toEqualTypeOf<number>();
    expectTypeOf<HandlerInput<"listNotifications">["body"]>().toEqualTypeOf<undefined>();
  });

  it("accepts only a body that matches a declared success status", () => {
    const ok: HandlerResult<"patchSubscriber"> = { status: 200, body: subscriber };
    expectTypeOf(ok.status).toEqualTypeOf<200>();
    // @ts-expect-error the body of a PATCH 200 is a Subscriber, not a search page
    const wrongBody: HandlerResult<"patchSubscriber"> = { status: 200, body: { data: [], next: null } };
    // @ts-expect-error 201 is not a status the operation declares
    const wrongStatus: HandlerResult<"patchSubscriber"> = { status: 201, body: subscriber };
    // @ts-expect-error errors are thrown as ApiError, not returned
    const error: HandlerResult<"getNotification"> = { status: 404, body: { message: "x" } };
    void [wrongBody, wrongStatus, error];
  });
});
