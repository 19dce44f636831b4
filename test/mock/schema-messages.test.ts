/**
 * One table of the words a user reads when an input breaks the schema (contract/model/schema-messages.ts): the same
 * bad inputs to the reference server (the skeleton's pipeline), the stateful MSW handlers and the zod schemas get the
 * same words, and none of them shows a regular expression or a library's wording. Every pattern a client's input
 * meets has its words in the spec (`x-pattern-message`), and reading ajv's messages back gives the issue its params
 * give.
 */
import { messages, patternMessages } from "@novu-query/contract/model";
import {
  zGetNotificationPath,
  zListNotificationsQuery,
  zPatchSubscriberRequest,
  zSearchSubscribersQuery,
} from "@novu-query/contract/zod";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { issueFromMessage, issueFromParams } from "../../contract/model/schema-messages.js";
import spec from "../../generated/openapi.json" with { type: "json" };
import { serverBesideMsw } from "../support/server-beside-msw.js";

const mswBase = "http://msw.schema-messages.test";

/** Each request that breaks the schema, the field it names, and the zod schema a form would check it with. */
const cases: { name: string; path: string; body?: object; field: string; zod: [ZodType, object] }[] = [
  {
    name: "a time zone of the wrong form",
    path: "/v2/subscribers/schema-messages",
    body: { timezone: "Mars Olympus" },
    field: "body.timezone",
    zod: [zPatchSubscriberRequest, { timezone: "Mars Olympus" }],
  },
  {
    name: "a locale of the wrong form",
    path: "/v2/subscribers/schema-messages",
    body: { locale: "english please" },
    field: "body.locale",
    zod: [zPatchSubscriberRequest, { locale: "english please" }],
  },
  {
    name: "an e-mail address without a domain",
    path: "/v2/subscribers/schema-messages",
    body: { email: "maya.patel@" },
    field: "body.email",
    zod: [zPatchSubscriberRequest, { email: "maya.patel@" }],
  },
  {
    name: "a notification id of the wrong length and form",
    path: "/v1/notifications/not-an-id",
    field: "path.notificationId",
    zod: [zGetNotificationPath, { notificationId: "not-an-id" }],
  },
  {
    name: "a limit over the maximum",
    path: "/v2/subscribers?limit=101",
    field: "query.limit",
    zod: [zSearchSubscribersQuery, { limit: 101 }],
  },
  {
    name: "an order nobody offers",
    path: "/v2/subscribers?orderBy=email",
    field: "query.orderBy",
    zod: [zSearchSubscribersQuery, { orderBy: "email" }],
  },
  {
    name: "a channel nobody offers",
    path: "/v1/notifications?channels=fax",
    field: "query.channels[0]",
    zod: [zListNotificationsQuery, { channels: ["fax"] }],
  },
];

/** The zod issue's message for a field (`query.channels[0]` is the zod path `channels.0`). */
function zodWords([schema, value]: [ZodType, object], field: string): string[] {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`zod accepted ${JSON.stringify(value)}`);
  const path = field.replace(/^\w+\./, "").replace(/\[(\d+)\]/g, ".$1");
  return result.error.issues.filter((issue) => issue.path.join(".") === path).map((issue) => issue.message);
}

describe("the words for a refused input, everywhere alike", () => {
  const running = serverBesideMsw(mswBase, { subscribers: 5, notifications: 5 });

  async function wordsFor(base: string, path: string, body: object | undefined, field: string): Promise<string[]> {
    const response = await fetch(`${base}${path}`, {
      method: body ? "PATCH" : "GET",
      headers: {
        authorization: `ApiKey ${running.server.production.apiKey}`,
        ...(body && { "content-type": "application/json" }),
      },
      ...(body && { body: JSON.stringify(body) }),
    });
    expect(response.status).toBe(422);
    const answer = (await response.json()) as { errors: Record<string, { messages: string[] }> };
    return answer.errors[field]?.messages ?? [];
  }

  it.each(cases)("$name: the server, MSW and zod say the same, in words", async ({ path, body, field, zod }) => {
    const fromServer = await wordsFor(running.server.baseUrl, path, body, field);
    const fromMsw = await wordsFor(mswBase, path, body, field);
    expect(fromServer.length).toBeGreaterThan(0);
    expect(fromMsw).toEqual(fromServer);
    for (const words of zodWords(zod, field)) expect(fromServer).toContain(words);
    for (const words of fromServer) {
      expect(words).toMatch(/^Must /);
      expect(words).not.toMatch(/\^|\$"|must match|allowed values|<=|NOT have/);
    }
  });

  it("say the spec's words for a time zone of the right form that nobody knows", async () => {
    const body = { timezone: "Mars/Olympus_Mons" };
    const path = "/v2/subscribers/schema-messages";
    const expected = [messages.timeZoneUnknown];
    expect(await wordsFor(running.server.baseUrl, path, body, "body.timezone")).toEqual(expected);
    expect(await wordsFor(mswBase, path, body, "body.timezone")).toEqual(expected);
    const timezone = spec.components.schemas.PatchSubscriberRequest.properties.timezone as { pattern: string };
    expect(patternMessages(spec).get(timezone.pattern)).toBe(messages.timeZoneUnknown);
  });
});

describe("the table of words", () => {
  it("has the spec's words for every pattern a client's input meets", () => {
    const missing: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) walk(item, `${at}/${index}`);
      } else if (node && typeof node === "object") {
        const record = node as Record<string, unknown>;
        if (typeof record.pattern === "string" && typeof record["x-pattern-message"] !== "string") missing.push(at);
        for (const [key, value] of Object.entries(record)) walk(value, `${at}/${key}`);
      }
    };
    walk(spec.components.parameters, "#/components/parameters");
    walk(spec.components.schemas, "#/components/schemas");
    expect(missing, "patterns without x-pattern-message").toEqual([]);
  });

  it("reads each of ajv's messages back to the issue its params give", () => {
    const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (
      ajv: Ajv2020,
    ) => void;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const schemas: [object, unknown][] = [
      [{ type: "string", pattern: "^[0-9a-f]{24}$" }, "x"],
      [{ type: "string", format: "email" }, "maya@"],
      [{ type: "string", minLength: 24, maxLength: 24 }, "short"],
      [{ type: "string", maxLength: 2 }, "long"],
      [{ type: "array", minItems: 2, maxItems: 3 }, [1]],
      [{ type: "array", maxItems: 1 }, [1, 2]],
      [{ type: "integer", minimum: 1, maximum: 100 }, 101],
      [{ type: "integer", minimum: 1 }, 0],
      [{ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 }, 1],
      [{ type: "integer" }, "ten"],
      [{ enum: ["ASC", "DESC"] }, "up"],
    ];
    let compared = 0;
    for (const [schema, value] of schemas) {
      const validate = ajv.compile(schema);
      expect(validate(value)).toBe(false);
      for (const error of validate.errors ?? []) {
        const params = error.params as Record<string, unknown>;
        // express-openapi-validator appends the allowed values to ajv's enum message, as the server receives it.
        const message =
          error.keyword === "enum"
            ? `${error.message}: ${(params.allowedValues as string[]).join(", ")}`
            : error.message;
        expect(issueFromMessage(error.keyword, message ?? ""), `${error.keyword}: ${message}`).toEqual(
          issueFromParams(error.keyword, params),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(schemas.length);
  });
});
