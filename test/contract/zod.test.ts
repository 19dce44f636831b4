/**
 * The zod schemas (generated/zod.ts, `@novu-query/contract/zod`): every named example of the spec parses with the
 * schema of what it illustrates, a wrong body is refused, request bodies are as strict as the server, and the
 * reference server's real answers parse too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { operationIds, operationTable } from "../../generated/operations.js";
import * as schemas from "../../generated/zod.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";
import { type JsonObject, listSpecOperations, resolve } from "../support/spec.js";

/** The zod schema of a spec schema: `z<Name>` for a `$ref` (an `allOf` over one is that one, narrowed). */
function zodFor(schema: JsonObject): ZodType {
  const ref = (schema.$ref ?? (schema.allOf as JsonObject[] | undefined)?.[0]?.$ref) as string;
  const zod = (schemas as Record<string, unknown>)[`z${ref.split("/").at(-1)}`];
  if (!zod) throw new Error(`no zod schema for ${ref}`);
  return zod as ZodType;
}

const examples = listSpecOperations().flatMap(({ method, path, operation }) => {
  const bodies = Object.entries(operation.responses as JsonObject).map(([status, raw]) => {
    const media = (resolve(raw).content as JsonObject)["application/json"] as JsonObject;
    return { where: `${method.toUpperCase()} ${path} ${status}`, media };
  });
  const request = operation.requestBody
    ? [
        {
          where: `${method.toUpperCase()} ${path} body`,
          media: (resolve(operation.requestBody).content as JsonObject)["application/json"] as JsonObject,
        },
      ]
    : [];
  return [...bodies, ...request].flatMap(({ where, media }) =>
    Object.entries((media.examples ?? {}) as JsonObject).map(
      ([name, example]) =>
        [`${where} ${name}`, zodFor(media.schema as JsonObject), resolve<{ value: unknown }>(example).value] as const,
    ),
  );
});

describe("the zod schemas", () => {
  it("cover every operation's parameters", () => {
    for (const id of operationIds) {
      const name = id.charAt(0).toUpperCase() + id.slice(1);
      if (operationTable[id].queryParameters.length > 0) expect(schemas).toHaveProperty(`z${name}Query`);
      if (operationTable[id].hasBody) expect(schemas).toHaveProperty(`z${name}Body`);
    }
  });

  it.each(examples)("parse the example %s", (_name, schema, value) => {
    const result = schema.safeParse(value);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it("refuse a wrong body, and a PATCH body with a field the contract lacks", () => {
    const subscriber = resolve<{ value: JsonObject }>({ $ref: "#/components/examples/SubscriberMayaPatel" }).value;
    expect(schemas.zSubscriber.safeParse({ ...subscriber, __v: -1 }).success).toBe(false);
    const { createdAt: _createdAt, ...withoutCreatedAt } = subscriber;
    expect(schemas.zSubscriber.safeParse(withoutCreatedAt).success).toBe(false);
    expect(schemas.zPatchSubscriberBody.safeParse({ locale: "en_US" }).success).toBe(true);
    expect(schemas.zPatchSubscriberBody.safeParse({ fristName: "typo" }).success).toBe(false);
    expect(schemas.zPatchSubscriberBody.safeParse({ email: "not-an-email" }).success).toBe(false);
    expect(schemas.zSearchSubscribersQuery.safeParse({ limit: 101 }).success).toBe(false);
    // An answer from a server a version ahead, with a field more, still parses (the field is dropped).
    expect(schemas.zSubscriber.parse({ ...subscriber, nickname: "maya" })).not.toHaveProperty("nickname");
  });

  it("word each refusal for a form: the spec's pattern messages, lengths, e-mail addresses and URLs", () => {
    const issues = (schema: ZodType, value: unknown) =>
      Object.fromEntries(
        (schema.safeParse(value).error?.issues ?? []).map((issue) => [issue.path.join("."), issue.message]),
      );
    expect(
      issues(schemas.zPatchSubscriberBody, {
        timezone: "Paris",
        locale: "english please",
        email: "maya",
        firstName: "x".repeat(257),
      }),
    ).toEqual({
      timezone: "Must be an IANA time zone such as Europe/Paris or UTC",
      locale: "Must be a language tag such as en, en-US or pt_BR",
      email: "Must be an e-mail address such as maya.patel@example.com",
      firstName: "Must be at most 256 characters",
    });
    expect(issues(schemas.zSearchSubscribersQuery, { email: "" })).toEqual({ email: "Must not be empty" });
    expect(issues(schemas.zListNotificationsQuery, { templates: Array(101).fill("66b7e1d0c3a2b1f0e9d8c7b6") })).toEqual(
      { templates: "Must have at most 100 values" },
    );
    expect(issues(schemas.zObjectId, "66B7E1D0C3A2B1F0E9D8C7B6")).toEqual({
      "": "Must be a record id of 24 lowercase hexadecimal characters such as 66b7e1d0c3a2b1f0e9d8c7b6",
    });
    expect(issues(schemas.zChannelCredentials, { webhookUrl: "hooks" })).toEqual({
      webhookUrl: "Must be a URL such as https://example.com/hooks/chat",
    });
  });
});

describe("the zod schemas against the reference server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver: "pglite", demo: { subscribers: 30, notifications: 60 } });
  });
  afterAll(() => server?.close());

  it("parse its real answers, successes and errors", async () => {
    const search = await json<unknown>(await server.request("/v2/subscribers?limit=30"));
    const page = schemas.zSearchSubscribersResponse.parse(search);
    const list = schemas.zListNotificationsResponse.parse(
      await json(await server.request("/v1/notifications?limit=50")),
    );
    const first = list.data[0];
    expect(first).toBeDefined();
    schemas.zNotification.parse(await json(await server.request(`/v1/notifications/${first?._id}`)));
    const subscriberId = page.data[0]?.subscriberId;
    schemas.zSubscriber.parse(
      await json(await server.request(`/v2/subscribers/${subscriberId}`, jsonPatch({ locale: "en_GB" }))),
    );
    schemas.zErrorDto.parse(await json(await server.request("/v1/notifications/ffffffffffffffffffffffff")));
    schemas.zValidationErrorDto.parse(await json(await server.request("/v2/subscribers?limit=500")));
  });
});
