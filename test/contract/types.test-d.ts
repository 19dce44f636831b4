import { describe, expectTypeOf, it } from "vitest";
import type {
  ChannelType,
  ErrorDto,
  Job,
  Notification,
  operations,
  SeverityLevel,
  Subscriber,
  ValidationErrorDto,
} from "../../generated/schema.js";

describe("generated types", () => {
  it("keep the wire names", () => {
    expectTypeOf<Subscriber["_id"]>().toEqualTypeOf<string>();
    expectTypeOf<Subscriber["__v"]>().toEqualTypeOf<number>();
    expectTypeOf<Subscriber["_environmentId"]>().toEqualTypeOf<string>();
    expectTypeOf<Notification["_subscriberId"]>().toEqualTypeOf<string>();
    // @ts-expect-error the SDK's camelCase names (`id`, `environmentId`) never reach the wire
    expectTypeOf<Subscriber["id"]>().toBeString();
  });

  it("carry nullability and optionality", () => {
    expectTypeOf<Subscriber["firstName"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Subscriber["lastOnlineAt"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Subscriber["data"]>().toEqualTypeOf<{ [key: string]: unknown } | null>();
    expectTypeOf<Notification["severity"]>().toEqualTypeOf<SeverityLevel>();
    expectTypeOf<Notification["subscriber"]>().toMatchTypeOf<{ _id: string; subscriberId: string } | undefined>();
    expectTypeOf<ErrorDto["errorId"]>().toEqualTypeOf<string | undefined>();
  });

  it("close the enums", () => {
    expectTypeOf<ChannelType>().toEqualTypeOf<"in_app" | "email" | "sms" | "chat" | "push">();
    expectTypeOf<SeverityLevel>().toEqualTypeOf<"high" | "medium" | "low" | "none">();
    expectTypeOf<Job["executionDetails"][number]["status"]>().toEqualTypeOf<
      "Success" | "Warning" | "Failed" | "Pending" | "Queued" | "ReadConfirmation"
    >();
  });

  it("type every operation's parameters, body and responses", () => {
    type Search = operations["searchSubscribers"];
    expectTypeOf<NonNullable<Search["parameters"]["query"]>["orderBy"]>().toEqualTypeOf<
      "_id" | "createdAt" | "updatedAt" | undefined
    >();
    type Patch = operations["patchSubscriber"];
    expectTypeOf<Patch["requestBody"]["content"]["application/json"]["email"]>().toEqualTypeOf<
      string | null | undefined
    >();
    expectTypeOf<Patch["responses"][200]["content"]["application/json"]>().toEqualTypeOf<Subscriber>();
    expectTypeOf<Patch["responses"][422]["content"]["application/json"]>().toEqualTypeOf<ValidationErrorDto>();
    type List = operations["listNotifications"];
    expectTypeOf<NonNullable<List["parameters"]["query"]>["channels"]>().toEqualTypeOf<ChannelType[] | undefined>();
    expectTypeOf<operations["getNotification"]["responses"][404]["content"]["application/json"]>().toEqualTypeOf<
      ErrorDto & { statusCode: 404 }
    >();
  });

  it("tell error bodies apart by statusCode", () => {
    type ErrorOf<K extends keyof operations> = {
      [S in keyof operations[K]["responses"]]: S extends number
        ? S extends 200
          ? never
          : operations[K]["responses"][S] extends { content: { "application/json": infer Body } }
            ? Body
            : never
        : never;
    }[keyof operations[K]["responses"]];
    const describe = (error: ErrorOf<"patchSubscriber">) => {
      if (error.statusCode === 422) return Object.keys(error.errors);
      // @ts-expect-error only the 422 body has `errors`
      void error.errors;
      return error.statusCode === 404 ? [error.message] : [];
    };
    void describe;
  });
});
