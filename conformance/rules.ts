/**
 * The conformance rules: black-box checks of any implementation of the contract, through the typed client. These
 * check requests and their answers one by one; the rules that compare answers with the contract's model over the
 * implementation's own data are in oracle-rules.ts and isolation-rules.ts. They need an environment with data (at
 * least a dozen subscribers and notifications). The PATCH rules (patch-rules.ts) change one subscriber and put back
 * exactly what they changed (write-target.ts); its `__v` grows.
 */
import type { ListNotificationsResponse, SearchSubscribersResponse, Subscriber } from "@novu-query/contract";
import { operationIds, operationTable } from "@novu-query/contract/operations";
import { type ConformanceContext, check, checkEqual, type Rule } from "./context.js";
import { examplePath } from "./coverage.js";
import { inputRules } from "./input-rules.js";
import { isolationRules } from "./isolation-rules.js";
import { largestPage } from "./oracle.js";
import { oracleRules } from "./oracle-rules.js";
import { patchRules } from "./patch-rules.js";
import { requestFormRules } from "./request-form-rules.js";

/** Search parameters as sent, unchecked: some rules send what the contract refuses. */
type SearchParams = Record<string, string | number | boolean>;

async function search(context: ConformanceContext, query: SearchParams = {}): Promise<SearchSubscribersResponse> {
  const { data, response } = await context.client.GET("/v2/subscribers", { params: { query } });
  check(
    response.status === 200 && data,
    `GET /v2/subscribers?${new URLSearchParams(query as never)} answered ${response.status}`,
  );
  return data;
}

async function list(
  context: ConformanceContext,
  query: Record<string, unknown> = {},
): Promise<ListNotificationsResponse> {
  const { data, response } = await context.client.GET("/v1/notifications", { params: { query } });
  check(response.status === 200 && data, `GET /v1/notifications answered ${response.status}`);
  return data;
}

function sortKey(subscriber: Subscriber, orderBy: string): [number, string] {
  return [orderBy === "_id" ? 0 : Date.parse(subscriber[orderBy as "createdAt" | "updatedAt"]), subscriber._id];
}

function inOrder(a: [number, string], b: [number, string], direction: string): boolean {
  const cmp = a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  return direction === "ASC" ? cmp < 0 : cmp > 0;
}

const requestRules: Rule[] = [
  // Authentication, on every operation of the contract's operation table
  ...operationIds.map(
    (id): Rule => ({
      id: `auth.missing.${id}`,
      level: "shape",
      text: `${operationTable[id].method.toUpperCase()} ${operationTable[id].path} without an Authorization header is answered 401 in the error shape`,
      async run(c) {
        await c.expectError(
          await c.raw(examplePath(id), { method: operationTable[id].method.toUpperCase(), authorization: null }),
          401,
        );
      },
    }),
  ),
  {
    id: "auth.messages",
    level: "behaviour",
    text: "The 401 messages are Novu's: missing header, invalid scheme, empty key, unknown key",
    async run(c) {
      await c.expectError(
        await c.raw("/v1/notifications", { authorization: null }),
        401,
        "Missing authorization header",
      );
      await c.expectError(
        await c.raw("/v1/notifications", { authorization: "Bearer x" }),
        401,
        'Invalid authentication scheme: "Bearer"',
      );
      await c.expectError(await c.raw("/v1/notifications", { authorization: "ApiKey" }), 401, "Unauthorized");
      await c.expectError(
        await c.raw("/v1/notifications", { authorization: `ApiKey ${"0".repeat(32)}` }),
        401,
        "API Key not found",
      );
    },
  },

  {
    id: "errors.path",
    level: "behaviour",
    text: "An error's path is the URL as it was requested: the prefix the service is mounted under, the path and the query",
    async run(c) {
      for (const [path, status, authorization] of [
        ["/v2/subscribers?limit=101&orderDirection=DESC", 422, undefined],
        [`/v1/notifications/${"f".repeat(24)}?x=1`, 422, undefined],
        ["/v1/notifications?limit=5", 401, null],
      ] as const) {
        const response = await c.raw(path, authorization === null ? { authorization } : {});
        const requested = new URL(response.url);
        const body = await c.expectError(response, status);
        checkEqual(body.path, requested.pathname + requested.search, `path of the ${status} to GET ${path}`);
      }
    },
  },

  // Search subscribers
  {
    id: "search.shape",
    level: "shape",
    text: "GET /v2/subscribers answers 200 with a SearchSubscribersResponse",
    async run(c) {
      c.matchesSchema(await search(c), "SearchSubscribersResponse");
    },
  },
  {
    id: "search.invalid-limit",
    level: "shape",
    text: `A limit above ${largestPage.subscribers} is answered 422 naming query.limit`,
    async run(c) {
      const body = await c.expectError(await c.raw(`/v2/subscribers?limit=${largestPage.subscribers + 1}`), 422);
      check(body.errors?.["query.limit"], "errors has no query.limit entry");
    },
  },
  {
    id: "search.invalid-order",
    level: "shape",
    text: "An orderDirection other than ASC or DESC is answered 422",
    async run(c) {
      await c.expectError(await c.raw("/v2/subscribers?orderDirection=sideways"), 422);
    },
  },
  {
    id: "search.default",
    level: "behaviour",
    text: "The default page holds at most 10 subscribers in descending _id order, and previous is null",
    async run(c) {
      const page = await search(c);
      check(page.data.length > 0 && page.data.length <= 10, `expected 1 to 10 rows, got ${page.data.length}`);
      for (let i = 1; i < page.data.length; i++) {
        check(
          inOrder(sortKey(page.data[i - 1] as Subscriber, "_id"), sortKey(page.data[i] as Subscriber, "_id"), "DESC"),
          "rows are not in descending _id order",
        );
      }
      checkEqual(page.previous, null, "previous of the first page");
    },
  },
  {
    id: "search.both-cursors",
    level: "behaviour",
    text: "after and before together are answered 400 with Novu's message",
    async run(c) {
      const page = await search(c, { limit: 2 });
      const [a, b] = page.data;
      check(a && b, "the environment needs at least 2 subscribers");
      await c.expectError(
        await c.raw(`/v2/subscribers?after=${a._id}&before=${b._id}`),
        400,
        c.exampleMessage("BadRequestBothCursors"),
      );
    },
  },

  // Patch subscriber
  // List notifications
  {
    id: "list.shape",
    level: "shape",
    text: "GET /v1/notifications answers 200 with a ListNotificationsResponse (each notification with its severity)",
    async run(c) {
      c.matchesSchema(await list(c), "ListNotificationsResponse");
    },
  },
  {
    id: "list.invalid-limit",
    level: "shape",
    text: `A limit above ${largestPage.notifications} is answered 422 naming query.limit`,
    async run(c) {
      const body = await c.expectError(await c.raw(`/v1/notifications?limit=${largestPage.notifications + 1}`), 422);
      check(body.errors?.["query.limit"], "errors has no query.limit entry");
    },
  },
  {
    id: "list.dates.reversed",
    level: "behaviour",
    text: "after later than before is answered 400 with Novu's message",
    async run(c) {
      await c.expectError(
        await c.raw("/v1/notifications?after=2026-02-01T00:00:00Z&before=2026-01-01T00:00:00Z"),
        400,
        c.exampleMessage("BadRequestDateRange"),
      );
    },
  },

  // Get notification
  {
    id: "get.shape",
    level: "shape",
    text: "GET /v1/notifications/{notificationId} answers 200 with a Notification",
    async run(c) {
      const first = (await list(c, { limit: 1 })).data[0];
      check(first, "the environment needs a notification");
      const { data, response } = await c.client.GET("/v1/notifications/{notificationId}", {
        params: { path: { notificationId: first._id } },
      });
      check(response.status === 200, `answered ${response.status}`);
      c.matchesSchema(data, "Notification");
    },
  },
  {
    id: "get.malformed-id",
    level: "shape",
    text: "An id that is not 24 hexadecimal characters is answered 422",
    async run(c) {
      await c.expectError(await c.raw("/v1/notifications/not-an-id"), 422);
    },
  },
  {
    id: "get.not-found",
    level: "behaviour",
    text: "An unknown id is answered 404 `Notification not found`",
    async run(c) {
      await c.expectError(await c.raw("/v1/notifications/ffffffffffffffffffffffff"), 404, "Notification not found");
    },
  },
];

/**
 * Every rule, in the order they run: requests and their refusals, requests in the forms clients write them, then the oracle's rules over the data as read at
 * their start, the isolation of two environments, and last the rules that change a subscriber (and put it back).
 */
export const rules: Rule[] = [
  ...requestRules,
  ...requestFormRules,
  ...oracleRules,
  ...inputRules,
  ...isolationRules,
  ...patchRules,
];
