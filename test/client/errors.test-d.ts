import { createClient, type NetworkError, type OperationError, type UnexpectedAnswerError } from "@novu-query/contract";
import type { ValidationKeys } from "@novu-query/contract/operations";
import { createQueries } from "@novu-query/contract/react-query";
import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { describe, expectTypeOf, it } from "vitest";

const queries = createQueries(createClient({ baseUrl: "/api", apiKey: "demo" }));

describe("the errors TanStack Query carries, typed per operation without a cast", () => {
  it("narrows a query's error on statusCode to the declared body", () => {
    const query = () => useQuery(queries.listNotifications({ limit: 5 }));
    type Error = ReturnType<typeof query>["error"];
    expectTypeOf<Error>().toEqualTypeOf<OperationError<"listNotifications"> | null>();
    const error = {} as NonNullable<Error>;
    if (error.statusCode === 422) {
      type Issue = { messages: string[]; value: unknown };
      const { errors } = error.body;
      // The keys the spec declares for this operation's inputs are properties (an editor lists them) ...
      type Declared = keyof { [Key in keyof typeof errors as string extends Key ? never : Key]: true };
      expectTypeOf<Declared>().toEqualTypeOf<ValidationKeys["listNotifications"]>();
      expectTypeOf<"query.limit" | `query.channels[${number}]`>().toExtend<Declared>();
      expectTypeOf<"body.email">().not.toExtend<Declared>();
      expectTypeOf(errors["query.limit"]).toEqualTypeOf<Issue | undefined>();
      // ... and a key the spec cannot know (an unknown field's) is still read, as an issue or nothing.
      expectTypeOf(errors["query.nickname"]).toEqualTypeOf<Issue | undefined>();
    }
    if (error.statusCode === 402) {
      // @ts-expect-error only a 422 body has errors
      void error.body.errors;
    }
    // @ts-expect-error listNotifications declares no 404: the comparison does not compile
    void (error.statusCode === 404);
    if (error.kind === "unexpected") expectTypeOf(error.body).toEqualTypeOf<string>();
    if (error.kind === "network") expectTypeOf(error).toEqualTypeOf<NetworkError>();
    expectTypeOf(error.retryAfter).toEqualTypeOf<number | undefined>();
    expectTypeOf(error.requestId).toEqualTypeOf<string | undefined>();
    expectTypeOf(error.headers).toEqualTypeOf<Headers>();
  });

  it("types infinite queries and the PATCH mutation the same way", () => {
    const pages = () => useInfiniteQuery(queries.searchSubscribersInfinite({ limit: 10 }));
    expectTypeOf<ReturnType<typeof pages>["error"]>().toEqualTypeOf<OperationError<"searchSubscribers"> | null>();
    const detail = () => useQuery(queries.notification("x"));
    expectTypeOf<ReturnType<typeof detail>["error"]>().toEqualTypeOf<OperationError<"getNotification"> | null>();
    const patch = () => useMutation(queries.patchSubscriber());
    type PatchError = NonNullable<ReturnType<typeof patch>["error"]>;
    expectTypeOf<PatchError>().toEqualTypeOf<OperationError<"patchSubscriber">>();
    const error = {} as PatchError;
    if (error.statusCode === 409 || error.statusCode === 404) expectTypeOf(error.body.message).toBeString();
    expectTypeOf<Extract<PatchError, { kind: "unexpected" }>>().toEqualTypeOf<UnexpectedAnswerError>();
  });
});

describe("OperationError with no argument", () => {
  it("is every operation's errors, so that a shared error banner takes each operation's error", () => {
    const banner = (error: OperationError) => (error.kind === "contract" ? error.body.message : error.message);
    expectTypeOf(banner).toBeCallableWith({} as OperationError<"patchSubscriber">);
    expectTypeOf(banner).toBeCallableWith({} as OperationError<"listNotifications">);
    expectTypeOf(banner).toBeCallableWith({} as OperationError<"getNotification">);
    expectTypeOf(banner).toBeCallableWith({} as OperationError<"searchSubscribers">);
    // Statuses only some operations declare: 402 (the list's retention), 404, 409 and 415 (the PATCH's).
    expectTypeOf<Extract<OperationError, { statusCode: 402 }>>().not.toBeNever();
    expectTypeOf<Extract<OperationError, { statusCode: 409 }>>().not.toBeNever();
    expectTypeOf<Extract<OperationError, { statusCode: 404 }>>().not.toBeNever();
    expectTypeOf<Extract<OperationError, { statusCode: 415 }>>().not.toBeNever();
  });
});
