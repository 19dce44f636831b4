/**
 * The conformance rules: black-box checks of any implementation of the contract, through the typed client. These
 * check requests and their answers one by one; the rules that compare answers with the contract's model over the
 * implementation's own data are in oracle-rules.ts and isolation-rules.ts. They need an environment with data (at
 * least a dozen subscribers and notifications). The PATCH rules change every field of one subscriber (the first a
 * search returns, or `--subscriber`) and put the old values back; its `__v` grows.
 */
import type {
  ListNotificationsResponse,
  PatchSubscriberRequest,
  SearchSubscribersResponse,
  Subscriber,
} from "@novu-query/contract";
import { patchSubscriber } from "@novu-query/contract/model";
import { operationIds, operationTable } from "@novu-query/contract/operations";
import { type ConformanceContext, check, checkEqual, type Rule } from "./context.js";
import { examplePath } from "./coverage.js";
import { isolationRules } from "./isolation-rules.js";
import { largestPage } from "./oracle.js";
import { oracleRules } from "./oracle-rules.js";

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

async function patchTarget(context: ConformanceContext): Promise<Subscriber> {
  const page = await search(
    context,
    context.target.subscriberId ? { subscriberId: context.target.subscriberId } : { limit: 1 },
  );
  check(page.data[0], "the environment needs at least one subscriber for the PATCH rules");
  return page.data[0];
}

function patch(context: ConformanceContext, subscriberId: string, body: Record<string, unknown>, key?: string) {
  return context.client.PATCH("/v2/subscribers/{subscriberId}", {
    params: { path: { subscriberId } },
    body,
    ...(key ? { headers: { "idempotency-key": key } } : {}),
  });
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
  {
    id: "patch.shape",
    level: "shape",
    text: "PATCH /v2/subscribers/{subscriberId} answers 200 with a Subscriber",
    async run(c) {
      const target = await patchTarget(c);
      const { data, response } = await patch(c, target.subscriberId, {});
      check(response.status === 200, `PATCH answered ${response.status}`);
      c.matchesSchema(data, "Subscriber");
    },
  },
  {
    id: "patch.unknown-field",
    level: "shape",
    text: "An unknown body field is answered 422",
    async run(c) {
      const target = await patchTarget(c);
      const response = await c.raw(`/v2/subscribers/${encodeURIComponent(target.subscriberId)}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fristName: "typo" }),
      });
      await c.expectError(response, 422);
    },
  },
  {
    id: "patch.merge",
    level: "behaviour",
    text: "A patch changes the given fields, keeps the others, increments __v by one and sets updatedAt; null clears",
    async run(c) {
      const before = await patchTarget(c);
      const marker = { conformance: Date.now() };
      const { data: changed } = await patch(c, before.subscriberId, { data: marker });
      check(changed, "the patch failed");
      checkEqual(changed.data, marker, "data after the patch");
      checkEqual(changed.__v, before.__v + 1, "__v after one change");
      check(Date.parse(changed.updatedAt) >= Date.parse(before.updatedAt), "updatedAt went backwards");
      checkEqual(
        { ...changed, data: null, __v: 0, updatedAt: "" },
        { ...before, data: null, __v: 0, updatedAt: "" },
        "the other fields",
      );
      const { data: cleared } = await patch(c, before.subscriberId, { data: null });
      checkEqual(cleared?.data, null, "data after null");
      const { data: restored } = await patch(c, before.subscriberId, { data: before.data });
      checkEqual(restored?.data, before.data, "data restored");
    },
  },
  {
    id: "patch.read-back",
    level: "behaviour",
    text: "A PATCH of every field answers what the model says and a search reads the same back; so do another data object (replacing the first whole), null for every field, and the old values back",
    async run(c) {
      const before = await patchTarget(c);
      const n = Date.now() % 100_000;
      const changes: PatchSubscriberRequest = {
        firstName: `Conformance ${n}`,
        lastName: `${before.lastName ?? ""}~`,
        email: `conformance.${n}@example.com`,
        phone: `+1555${String(n).padStart(7, "0")}`,
        avatar: `https://example.com/avatars/${n}.png`,
        locale: before.locale === "de-DE" ? "fr-FR" : "de-DE",
        timezone: before.timezone === "Asia/Tokyo" ? "Europe/Berlin" : "Asia/Tokyo",
        data: { conformance: n, nested: { list: [1, "two", null] } },
      };
      const restore = Object.fromEntries(
        Object.keys(changes).map((field) => [field, before[field as keyof PatchSubscriberRequest]]),
      ) as PatchSubscriberRequest;
      const cleared = Object.fromEntries(Object.keys(changes).map((field) => [field, null])) as PatchSubscriberRequest;
      let current = before;
      // A second object for `data` after the first: it replaces it whole (a merge keeps the first one's keys).
      const otherData: PatchSubscriberRequest = { data: { replaced: n } };
      for (const body of [changes, otherData, cleared, restore]) {
        const request = `PATCH /v2/subscribers/${before.subscriberId} ${JSON.stringify(body).slice(0, 80)}`;
        const { data, response } = await patch(c, before.subscriberId, body);
        check(response.status === 200 && data, `${request} answered ${response.status}`);
        check(
          Date.parse(data.updatedAt) >= Date.parse(current.updatedAt),
          `${request}: updatedAt went back from ${current.updatedAt} to ${data.updatedAt}`,
        );
        const expected = patchSubscriber([current], before.subscriberId, body, new Date(data.updatedAt));
        check(expected.status === 200, `the model refuses ${request}`);
        checkEqual(data, expected.body, `${request}: the answer against the model's`);
        const readBack = await search(c, { subscriberId: before.subscriberId });
        checkEqual(readBack.data[0], data, `${request}: the subscriber read back by a search`);
        current = data;
      }
    },
  },
  {
    id: "patch.locale",
    level: "behaviour",
    text: "A locale as Novu accepts it, `en_US` as well as `en-US`, is stored and returned as sent",
    async run(c) {
      const before = await patchTarget(c);
      for (const locale of ["en_US", "zh-Hant-TW"]) {
        const { data, response } = await patch(c, before.subscriberId, { locale });
        check(response.status === 200, `locale ${locale} answered ${response.status}`);
        checkEqual(data?.locale, locale, "locale");
      }
      await patch(c, before.subscriberId, { locale: before.locale ?? null });
    },
  },
  {
    id: "patch.no-op",
    level: "behaviour",
    text: "A patch that changes nothing (an object's keys in another order included) leaves __v and updatedAt as they were",
    async run(c) {
      const before = await patchTarget(c);
      const { data } = await patch(c, before.subscriberId, { lastName: before.lastName });
      checkEqual([data?.__v, data?.updatedAt], [before.__v, before.updatedAt], "__v and updatedAt");
      // An object is the same whatever the order of its keys, and so is a nested one (as jsonb compares them).
      const stored = { b: [1, { y: "two", x: null }], a: "one" };
      const { data: changed } = await patch(c, before.subscriberId, { data: stored });
      check(changed, "the patch of data failed");
      const reordered = { a: "one", b: [1, { x: null, y: "two" }] };
      const { data: same } = await patch(c, before.subscriberId, { data: reordered });
      checkEqual(
        [same?.__v, same?.updatedAt],
        [changed.__v, changed.updatedAt],
        "__v and updatedAt after the same data, keys reordered",
      );
      const { data: other } = await patch(c, before.subscriberId, {
        data: { a: "one", b: [{ x: null, y: "two" }, 1] },
      });
      checkEqual(other?.__v, changed.__v + 1, "__v after data whose array is in another order");
      await patch(c, before.subscriberId, { data: before.data });
    },
  },
  {
    id: "patch.idempotent-replay",
    level: "behaviour",
    text: "The same idempotency key and body is applied once and replayed with Idempotency-Replay: true; every answer echoes Idempotency-Key, and reusing the key for another body is 422 with Novu's Link",
    async run(c) {
      const before = await patchTarget(c);
      const key = `conformance-${Date.now()}`;
      const body = { lastName: `${before.lastName ?? ""}~` };
      const first = await patch(c, before.subscriberId, body, key);
      const second = await patch(c, before.subscriberId, body, key);
      checkEqual(second.response.headers.get("idempotency-replay"), "true", "Idempotency-Replay on the retry");
      checkEqual(second.data, first.data, "replayed body");
      checkEqual(second.data?.__v, before.__v + 1, "__v after two identical requests");
      checkEqual(first.response.headers.get("idempotency-key"), key, "Idempotency-Key on the first answer");
      checkEqual(second.response.headers.get("idempotency-key"), key, "Idempotency-Key on the replay");
      const reused = await c.raw(`/v2/subscribers/${encodeURIComponent(before.subscriberId)}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ lastName: "something else" }),
      });
      checkEqual(reused.headers.get("idempotency-key"), key, "Idempotency-Key on the 422");
      checkEqual(
        reused.headers.get("link"),
        "https://docs.novu.co/additional-resources/idempotency",
        "Link on the 422",
      );
      await c.expectError(reused, 422, `Request with key "${key}" is being reused for a different body`);
      await patch(c, before.subscriberId, { lastName: before.lastName });
    },
  },
  {
    id: "patch.not-found",
    level: "behaviour",
    text: "An unknown subscriberId is answered 404 `Subscriber <id> was not found`",
    async run(c) {
      const id = `no-such-subscriber-${Date.now()}`;
      const response = await c.raw(`/v2/subscribers/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      await c.expectError(response, 404, `Subscriber ${id} was not found`);
    },
  },
  {
    id: "patch.bad-input",
    level: "behaviour",
    text: "Malformed JSON is 400, a non-JSON body 415, an idempotency key over 255 characters 400 (Novu's message), an invalid email or an unknown time zone 422",
    async run(c) {
      const target = await patchTarget(c);
      const path = `/v2/subscribers/${encodeURIComponent(target.subscriberId)}`;
      const json = { "content-type": "application/json" };
      await c.expectError(await c.raw(path, { method: "PATCH", headers: json, body: "{oops" }), 400);
      await c.expectError(
        await c.raw(path, { method: "PATCH", headers: { "content-type": "text/plain" }, body: "x" }),
        415,
      );
      await c.expectError(
        await c.raw(path, { method: "PATCH", headers: { ...json, "idempotency-key": "k".repeat(256) }, body: "{}" }),
        400,
        c.exampleMessage("BadRequestIdempotencyKeyTooLong"),
      );
      const invalid = await c.expectError(
        await c.raw(path, { method: "PATCH", headers: json, body: '{"email":"nope"}' }),
        422,
      );
      check(invalid.errors?.["body.email"], "errors has no body.email entry");
      // A time zone of the right shape that does not exist: the schema's pattern passes it, the IANA database does not.
      const zone = await c.expectError(
        await c.raw(path, { method: "PATCH", headers: json, body: '{"timezone":"Mars/Olympus_Mons"}' }),
        422,
      );
      const entry = zone.errors?.["body.timezone"];
      check(entry, "errors has no body.timezone entry for the time zone Mars/Olympus_Mons");
      check(entry.messages.length > 0 && entry.messages.every((m) => m.length > 0), "body.timezone has no message");
      checkEqual(entry.value, "Mars/Olympus_Mons", "the value of body.timezone");
    },
  },

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
 * Every rule, in the order they run: requests and their refusals, then the oracle's rules over the data as read at
 * their start, the isolation of two environments, and last the rules that change a subscriber (and put it back).
 */
export const rules: Rule[] = [
  ...requestRules.filter((rule) => !rule.id.startsWith("patch.")),
  ...oracleRules,
  ...isolationRules,
  ...requestRules.filter((rule) => rule.id.startsWith("patch.")),
];
