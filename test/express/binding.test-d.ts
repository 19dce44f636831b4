import {
  type ApiError,
  type Handler,
  type HandlerInput,
  type HandlerResult,
  type Handlers,
  handler,
  type Notification,
  type OperationId,
  type Subscriber,
} from "@novu-query/express";
import { describe, expectTypeOf, it } from "vitest";
import { errorsFor } from "../../express/operation-errors.js";
import { handlers } from "../../server/handlers/index.js";

declare const subscriber: Subscriber;
declare const notification: Notification;
declare const get: Handler<"getNotification">;
declare const someOperation: OperationId;

describe("the typed handler binding", () => {
  it("has exactly one handler per operation of the generated operation table", () => {
    // Derived from the table, so a new operation needs no edit here.
    expectTypeOf<keyof typeof handlers>().toEqualTypeOf<OperationId>();
    expectTypeOf<keyof Handlers>().toEqualTypeOf<OperationId>();
    const { [someOperation]: _dropped, ...oneShort } = handlers;
    // @ts-expect-error a missing handler does not compile
    const missing: Handlers = oneShort;
    const extra: Handlers = {
      ...handlers,
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
    // The request's headers, the declared ones as the spec types them, and not the caller's key.
    expectTypeOf<HandlerInput<"patchSubscriber">["headers"]["idempotency-key"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<HandlerInput<"getNotification">["headers"]["user-agent"]>().toEqualTypeOf<
      string | string[] | undefined
    >();
    expectTypeOf<HandlerInput<"getNotification">["headers"]["authorization"]>().toEqualTypeOf<undefined>();
  });

  it("accepts only a body that matches a declared success status", () => {
    const ok: HandlerResult<"patchSubscriber"> = { status: 200, body: subscriber };
    expectTypeOf(ok.status).toEqualTypeOf<200>();
    // @ts-expect-error the body of a PATCH 200 is a Subscriber, not a search page
    const wrongBody: HandlerResult<"patchSubscriber"> = { status: 200, body: { data: [], next: null } };
    // @ts-expect-error 201 is not a status the operation declares
    const wrongStatus: HandlerResult<"patchSubscriber"> = { status: 201, body: subscriber };
    // @ts-expect-error errors are thrown, not returned
    const error: HandlerResult<"getNotification"> = { status: 404, body: { message: "x" } };
    void [wrongBody, wrongStatus, error];
  });

  it("refuses a success body with a field the contract does not declare, at any depth", () => {
    handler("patchSubscriber", async () => ({ status: 200, body: subscriber }));
    // @ts-expect-error a spread row with one field too many (TypeScript's own excess-property check misses this)
    handler("patchSubscriber", async () => ({ status: 200, body: { ...subscriber, passwordHash: "x" } }));
    const page = { data: [{ ...notification, internalCost: 3 }], hasMore: false, pageSize: 10, page: 0 };
    // @ts-expect-error an extra field inside the items of a page
    handler("listNotifications", async () => ({ status: 200, body: page }));
    handler("listNotifications", async () => ({
      status: 200,
      body: { data: [notification], hasMore: false, pageSize: 10, page: 0 },
    }));
  });

  it("offers each operation the error helpers of the statuses it declares, and no others", () => {
    const list = errorsFor("listNotifications");
    const get = errorsFor("getNotification");
    expectTypeOf(list.paymentRequired).returns.toEqualTypeOf<ApiError>();
    expectTypeOf(get.notFound).returns.toEqualTypeOf<ApiError>();
    list.status(402, "retention");
    // @ts-expect-error listNotifications declares no 404
    list.notFound("x");
    // @ts-expect-error getNotification declares no 402
    get.paymentRequired("x");
    // @ts-expect-error no operation declares 418
    get.status(418, "I'm a teapot");
    // @ts-expect-error a 422 names its inputs: errors.validation(fields)
    get.status(422, "x");
    handler("getNotification", async (_input, { errors }) => {
      // @ts-expect-error the context's helpers are the operation's own
      throw errors.paymentRequired("x");
    });
  });
});
