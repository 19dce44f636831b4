/**
 * The conformance rules: black-box checks of any implementation of the contract, through the typed client.
 * They need an environment with data (at least a dozen subscribers and notifications). They change one subscriber's
 * `data` and `lastName` (the first a search returns, or `--subscriber`) and put the old values back; its `__v` grows.
 */
import type {
  ListNotificationsResponse,
  Notification,
  SearchSubscribersResponse,
  Subscriber,
} from "@novu-query/contract";
import { operationIds, operationTable } from "@novu-query/contract/operations";
import { type ConformanceContext, check, checkEqual, type Rule } from "./context.js";
import { examplePath } from "./coverage.js";

type SearchQuery = Record<string, string | number | boolean>;
const walkCap = 400;

async function search(context: ConformanceContext, query: SearchQuery = {}): Promise<SearchSubscribersResponse> {
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

/** Pages of a cursor walk, at most `walkCap` rows. */
async function walk(context: ConformanceContext, query: SearchQuery): Promise<SearchSubscribersResponse[]> {
  const pages: SearchSubscribersResponse[] = [];
  let after: string | null = null;
  let rows = 0;
  do {
    const page: SearchSubscribersResponse = await search(context, after ? { ...query, after } : query);
    pages.push(page);
    rows += page.data.length;
    after = page.next;
  } while (after && rows < walkCap);
  return pages;
}

function sortKey(subscriber: Subscriber, orderBy: string): [number, string] {
  return [orderBy === "_id" ? 0 : Date.parse(subscriber[orderBy as "createdAt" | "updatedAt"]), subscriber._id];
}

function inOrder(a: [number, string], b: [number, string], direction: string): boolean {
  const cmp = a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  return direction === "ASC" ? cmp < 0 : cmp > 0;
}

async function someSubscriber(context: ConformanceContext, predicate: (s: Subscriber) => boolean): Promise<Subscriber> {
  const page = await search(context, { limit: 100 });
  const found = page.data.find(predicate);
  check(found, "the environment needs a subscriber with an email, a first and a last name for this rule");
  return found;
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

const orders = ["_id", "createdAt", "updatedAt"].flatMap((orderBy) =>
  ["DESC", "ASC"].map((dir) => [orderBy, dir] as const),
);

export const rules: Rule[] = [
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
    text: "A limit above 100 is answered 422 naming query.limit",
    async run(c) {
      const body = await c.expectError(await c.raw("/v2/subscribers?limit=101"), 422);
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
  ...orders.map(
    ([orderBy, direction]): Rule => ({
      id: `search.walk.${orderBy}.${direction}`,
      level: "behaviour",
      text: `Following next visits each subscriber once in (${orderBy}, _id) ${direction} order, and before=previous gives back the page before`,
      async run(c) {
        const query = { limit: 7, orderBy, orderDirection: direction };
        const pages = await walk(c, query);
        const rows = pages.flatMap((p) => p.data);
        checkEqual(new Set(rows.map((s) => s._id)).size, rows.length, "distinct rows in the walk");
        for (let i = 1; i < rows.length; i++) {
          check(
            inOrder(sortKey(rows[i - 1] as Subscriber, orderBy), sortKey(rows[i] as Subscriber, orderBy), direction),
            `rows ${i - 1} and ${i} are out of (${orderBy}, _id) ${direction} order`,
          );
        }
        for (let i = 1; i < pages.length; i++) {
          const page = pages[i] as SearchSubscribersResponse;
          checkEqual(page.previous, page.data[0]?._id ?? null, `previous of page ${i + 1}`);
          const back = await search(c, { ...query, before: page.previous as string });
          checkEqual(
            back.data.map((s) => s._id),
            (pages[i - 1] as SearchSubscribersResponse).data.map((s) => s._id),
            `before=previous of page ${i + 1}`,
          );
        }
        const last = pages.at(-1) as SearchSubscribersResponse;
        if (rows.length < walkCap) checkEqual(last.next, null, "next of the last page");
      },
    }),
  ),
  {
    id: "search.include-cursor",
    level: "behaviour",
    text: "includeCursor=true includes the cursor row itself at the edge of the page",
    async run(c) {
      const first = await search(c, { limit: 5 });
      const cursor = first.data[2]?._id;
      check(cursor, "the environment needs at least 3 subscribers");
      const page = await search(c, { limit: 2, after: cursor, includeCursor: true });
      checkEqual(
        page.data.map((s) => s._id),
        first.data.slice(2, 4).map((s) => s._id),
        "page after the cursor, cursor included",
      );
    },
  },
  {
    id: "search.subscriber-id",
    level: "behaviour",
    text: "subscriberId matches exactly",
    async run(c) {
      const someone = await someSubscriber(c, () => true);
      const page = await search(c, { subscriberId: someone.subscriberId });
      checkEqual(
        page.data.map((s) => s._id),
        [someone._id],
        "rows for the exact subscriberId",
      );
      checkEqual(page.totalCount, 1, "totalCount");
    },
  },
  {
    id: "search.email",
    level: "behaviour",
    text: "email matches a case-insensitive substring",
    async run(c) {
      const someone = await someSubscriber(c, (s) => (s.email ?? "").length >= 6);
      const needle = (someone.email as string).slice(1, 5).toUpperCase();
      const page = await search(c, { email: needle, limit: 100 });
      for (const s of page.data)
        check((s.email ?? "").toLowerCase().includes(needle.toLowerCase()), `${s.email} does not contain ${needle}`);
      if (page.totalCount <= 100)
        check(
          page.data.some((s) => s._id === someone._id),
          `${someone.email} is missing from email=${needle}`,
        );
    },
  },
  {
    id: "search.name",
    level: "behaviour",
    text: "name matches a case-insensitive substring of firstName, a space, lastName",
    async run(c) {
      const someone = await someSubscriber(c, (s) => !!s.firstName && !!s.lastName);
      const needle = `${someone.firstName?.slice(-2)} ${someone.lastName?.slice(0, 2)}`.toUpperCase();
      const page = await search(c, { name: needle, limit: 100 });
      check(
        page.data.some((s) => s._id === someone._id),
        `"${someone.firstName} ${someone.lastName}" is missing from name=${needle}`,
      );
      for (const s of page.data) {
        check(
          `${s.firstName ?? ""} ${s.lastName ?? ""}`.toLowerCase().includes(needle.toLowerCase()),
          `${s.firstName} ${s.lastName} does not match`,
        );
      }
    },
  },
  {
    id: "search.literal",
    level: "behaviour",
    text: "Filter input is matched literally: % and _ are ordinary characters",
    async run(c) {
      for (const needle of ["%", "_"]) {
        const page = await search(c, { email: needle, limit: 100 });
        for (const s of page.data) check((s.email ?? "").includes(needle), `email=${needle} matched ${s.email}`);
      }
    },
  },
  {
    id: "search.total-count",
    level: "behaviour",
    text: "totalCount counts every match whatever the cursor; totalCountCapped only at the 50,000 cap",
    async run(c) {
      const first = await search(c, { limit: 3 });
      check(first.next, "the environment needs more than 3 subscribers");
      const second = await search(c, { limit: 3, after: first.next });
      checkEqual(second.totalCount, first.totalCount, "totalCount on page 2");
      check(
        first.totalCountCapped ? first.totalCount === 50_000 : first.totalCount <= 50_000,
        "totalCount and totalCountCapped disagree",
      );
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
  {
    id: "search.unknown-cursor",
    level: "behaviour",
    text: "A well-formed cursor that names no subscriber gives an empty page",
    async run(c) {
      const page = await search(c, { after: "ffffffffffffffffffffffff" });
      checkEqual(page.data, [], "data");
      checkEqual([page.next, page.previous], [null, null], "next and previous");
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
    text: "A patch that changes nothing leaves __v and updatedAt as they were",
    async run(c) {
      const before = await patchTarget(c);
      const { data } = await patch(c, before.subscriberId, { lastName: before.lastName });
      checkEqual([data?.__v, data?.updatedAt], [before.__v, before.updatedAt], "__v and updatedAt");
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
    text: "Malformed JSON is 400, a non-JSON body 415, an idempotency key over 255 characters 400 (Novu's message), an invalid email 422",
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
    text: "A limit above 50 is answered 422 naming query.limit",
    async run(c) {
      const body = await c.expectError(await c.raw("/v1/notifications?limit=51"), 422);
      check(body.errors?.["query.limit"], "errors has no query.limit entry");
    },
  },
  {
    id: "list.walk",
    level: "behaviour",
    text: "Pages from 0 until hasMore is false visit each notification once, newest first (createdAt, then _id)",
    async run(c) {
      const first = await list(c);
      checkEqual([first.page, first.pageSize], [0, 10], "page and pageSize by default");
      const rows: Notification[] = [];
      let page = 0;
      let more = true;
      while (more && rows.length < walkCap) {
        const body = await list(c, { limit: 25, page });
        rows.push(...body.data);
        more = body.hasMore;
        page += 1;
      }
      checkEqual(new Set(rows.map((n) => n._id)).size, rows.length, "distinct notifications");
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1] as Notification, rows[i] as Notification];
        const newer = Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a._id > b._id ? 1 : -1);
        check(newer > 0, `notifications ${i - 1} and ${i} are out of order`);
      }
      if (!more) {
        const beyond = await list(c, { limit: 25, page });
        checkEqual([beyond.data.length, beyond.hasMore], [0, false], "a page past the end");
      }
    },
  },
  {
    id: "list.filters",
    level: "behaviour",
    text: "channels, severity, transactionId and subscriberIds return only matching notifications",
    async run(c) {
      const sample = (await list(c, { limit: 50 })).data;
      const withChannel = sample.find((n) => n.channels.length > 0);
      check(withChannel, "the environment needs a notification with a channel");
      const channel = withChannel.channels[0] as Notification["channels"][number];
      for (const n of (await list(c, { channels: [channel], limit: 50 })).data)
        check(n.channels.includes(channel), `${n._id} lacks ${channel}`);
      for (const n of (await list(c, { severity: ["high"], limit: 50 })).data)
        checkEqual(n.severity, "high", `severity of ${n._id}`);
      const byTransaction = await list(c, { transactionId: withChannel.transactionId });
      check(
        byTransaction.data.some((n) => n._id === withChannel._id),
        "transactionId did not find its notification",
      );
      for (const n of byTransaction.data) checkEqual(n.transactionId, withChannel.transactionId, "transactionId");
      if (withChannel.subscriber) {
        const bySubscriber = await list(c, { subscriberIds: [withChannel.subscriber.subscriberId], limit: 50 });
        for (const n of bySubscriber.data) checkEqual(n._subscriberId, withChannel._subscriberId, "_subscriberId");
      }
    },
  },
  {
    id: "list.dates",
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
    id: "get.whole",
    level: "behaviour",
    text: "A listed notification is returned whole, equal to its list entry",
    async run(c) {
      for (const listed of (await list(c, { limit: 3 })).data) {
        const { data } = await c.client.GET("/v1/notifications/{notificationId}", {
          params: { path: { notificationId: listed._id } },
        });
        checkEqual(data, listed, `notification ${listed._id}`);
      }
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
