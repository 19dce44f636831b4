/**
 * How requests are written, as clients write them: the `Authorization` header's spacing and spelling, query keys the
 * contract does not have (a typo, a bracketed list as `qs` writes it, a prototype's name), a body's `Content-Type`
 * with and without a charset, and every form of a date-time read to the millisecond. Each expected answer is the
 * contract's model's (`readAuthorization`, `unknownQueryKey`, `contentTypeProblem`, `listWindow` through the oracle),
 * so these rules say nothing the model does not.
 */
import {
  contentTypeProblem,
  dateTimeForms,
  keyNotFound,
  readAuthorization,
  unknownQueryKey,
} from "@novu-query/contract/model";
import { type OperationId, operationIds, operationTable } from "@novu-query/contract/operations";
import { type ConformanceContext, check, checkEqual, type Rule } from "./context.js";
import { examplePath } from "./coverage.js";
import { expectList, snapshotOf } from "./oracle.js";
import { anySubscriber } from "./patch-rules.js";

type ErrorBody = Awaited<ReturnType<ConformanceContext["expectError"]>>;

/**
 * Checks the answer to a request is the one the model gives: 200 when `refusal` is undefined, else that status (and
 * its message, when given) in the error shape, whose body it returns. A failure names the request.
 */
async function expectAnswer(
  context: ConformanceContext,
  request: string,
  response: Response,
  refusal: { status: number; message?: string } | undefined,
): Promise<ErrorBody | undefined> {
  if (refusal === undefined) {
    const text = await response.text();
    check(response.status === 200, `${request}: expected 200, got ${response.status}: ${text.slice(0, 300)}`);
    return undefined;
  }
  try {
    return await context.expectError(response, refusal.status, refusal.message);
  } catch (error) {
    throw Object.assign(error as Error, { message: `${request}: ${(error as Error).message}` });
  }
}

/**
 * `Authorization` headers as clients get them wrong or write them differently, built on the run's key: two spaces or
 * a tab after the scheme, the scheme in other cases or another scheme, a scheme too long to echo whole, the key
 * with a word after it, split by a space (pasted across a line) or a letter more, nothing after the scheme.
 */
function headerForms(apiKey: string): string[] {
  return [
    `ApiKey ${apiKey}`,
    `ApiKey  ${apiKey}`,
    `ApiKey\t${apiKey}`,
    `apikey ${apiKey}`,
    `APIKEY ${apiKey}`,
    `Bearer ${apiKey}`,
    `${"ApiKey".repeat(11)} ${apiKey}`,
    `ApiKey ${apiKey} ${apiKey}`,
    `ApiKey ${apiKey.slice(0, Math.ceil(apiKey.length / 2))} ${apiKey.slice(Math.ceil(apiKey.length / 2))}`,
    `ApiKey ${apiKey}x`,
    "ApiKey",
    apiKey,
  ];
}

/**
 * Query keys the operation does not have, for an operation with these parameters, each sent with its values: a typo,
 * one repeated, a prototype's name, and for a parameter it has, that name with a letter more and bracketed as `qs`
 * writes an array.
 */
function strayKeys(parameters: readonly string[]): [string, string[]][] {
  const known = parameters[0];
  return [
    ["foo", ["1"]],
    ["foo", ["1", "2"]],
    ["constructor[x]", ["1"]],
    ["__proto__[polluted]", ["1"]],
    ...(known === undefined
      ? []
      : ([
          [`${known}s`, ["1"]],
          [`${known}[0]`, ["x"]],
          [`${known}[]`, ["x", "y"]],
        ] as [string, string[]][])),
  ];
}

function queryKeyRule(id: OperationId): Rule {
  const { method, path, queryParameters, hasBody } = operationTable[id];
  const known = new Set<string>(queryParameters);
  return {
    id: `request.query-keys.${id}`,
    level: "behaviour",
    ...(method === "patch" && { writes: true as const }),
    text: `${method.toUpperCase()} ${path} with a query key it does not have (unknown, bracketed as qs writes a list, a prototype's name) is answered 422 naming the key and the values sent under it`,
    async run(c) {
      for (const [key, values] of strayKeys(queryParameters)) {
        const query = values.map((value) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join("&");
        const request = `${method.toUpperCase()} ${examplePath(id)}?${query}`;
        const response = await c.raw(`${examplePath(id)}?${query}`, {
          method: method.toUpperCase(),
          ...(hasBody && { headers: { "content-type": "application/json" }, body: "{}" }),
        });
        const body = await expectAnswer(c, request, response, { status: 422 });
        checkEqual(
          body?.errors?.[`query.${key}`],
          unknownQueryKey(key, values, (name) => known.has(name)),
          `${request}: errors["query.${key}"]`,
        );
      }
    },
  };
}

/** A body's `Content-Type` as clients send it: charsets in other spellings and other charsets, other media types. */
const contentTypes: (string | null)[] = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=UTF-8",
  'application/json; charset="utf-8"',
  "application/json; charset=utf8",
  "application/json; charset=us-ascii",
  "Application/JSON",
  "application/merge-patch+json",
  "application/json; charset=utf-16",
  "application/json; charset=iso-8859-1",
  "application/json; charset=utf-8; profile=subscriber",
  "application/json; profile=subscriber; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  null,
];

export const requestFormRules: Rule[] = [
  {
    id: "auth.header-forms",
    level: "behaviour",
    text: "The Authorization header is read as Novu reads it: `ApiKey` (that case) and whatever follows it, spaces between collapsed; every other form is 401 with the message for what is wrong",
    async run(c) {
      const valid = new Set([c.target.apiKey, c.target.otherApiKey].filter(Boolean));
      for (const header of headerForms(c.target.apiKey)) {
        const read = readAuthorization(header);
        const refusal =
          "apiKey" in read
            ? valid.has(read.apiKey)
              ? undefined
              : { status: 401, message: keyNotFound.message }
            : { status: 401, message: read.message };
        const response = await c.raw("/v1/notifications?limit=1", { authorization: header });
        await expectAnswer(c, `GET /v1/notifications with Authorization: ${JSON.stringify(header)}`, response, refusal);
      }
    },
  },
  ...operationIds.map(queryKeyRule),
  {
    id: "patch.content-types",
    level: "behaviour",
    writes: true,
    text: "A PATCH body is read as `application/json` in any case, with no charset or `utf-8` in any spelling; another charset (`utf8` and `us-ascii` too), another media type or none is 415 with the message for it",
    async run(c) {
      const subscriber = await anySubscriber(c);
      const path = `/v2/subscribers/${encodeURIComponent(subscriber.subscriberId)}`;
      for (const type of contentTypes) {
        const problem = contentTypeProblem(type);
        // A body of bytes: fetch gives it no Content-Type of its own.
        const response = await c.raw(path, {
          method: "PATCH",
          ...(type !== null && { headers: { "content-type": type } }),
          body: new TextEncoder().encode("{}"),
        });
        await expectAnswer(
          c,
          `PATCH ${path} {} with ${type === null ? "no Content-Type" : `Content-Type: ${type}`}`,
          response,
          problem === undefined ? undefined : { status: 415, message: problem },
        );
      }
    },
  },
  {
    id: "list.dates.instant",
    level: "behaviour",
    text: "Every form of a date-time (offsets, a space, lower case, more fraction digits, 23:59:60) names its instant to the millisecond: as after and as before, beside the instant itself (200) and the millisecond on the other side of it (400 reversed)",
    async run(c) {
      const snapshot = await snapshotOf(c);
      // Yesterday (UTC), inside any retention window: its noon, whose forms include one without a fraction, and its
      // last millisecond, whose forms include `23:59:60`.
      const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      let sent = 0;
      for (const instant of [`${day}T12:00:00.000Z`, `${day}T23:59:59.999Z`]) {
        const beside = (ms: number) => new Date(Date.parse(instant) + ms).toISOString();
        const forms = dateTimeForms(instant);
        check(forms.length > 8, `the forms of ${instant} include its whole seconds or its leap second`);
        for (const form of forms) {
          await expectList(c, snapshot, { after: form, before: instant });
          await expectList(c, snapshot, { after: form, before: beside(-1) });
          await expectList(c, snapshot, { after: instant, before: form });
          await expectList(c, snapshot, { after: beside(1), before: form });
          sent += 4;
        }
      }
      c.note(`${sent} queries`);
    },
  },
];
