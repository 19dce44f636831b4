/**
 * Small, realistic faults of the kind teams ship, each in an otherwise correct implementation built on the model
 * (test/support/model-service.ts), with the conformance rules that must catch it: a fault is caught when one of the
 * rules named (an id, or an id prefix ending in ".") fails.
 */
import {
  containsIgnoringCase,
  getNotification,
  inputs,
  listNotifications,
  messages,
  patchSubscriber,
  retentionStart,
  searchSubscribers,
} from "@novu-query/contract/model";
import type { Notification, Subscriber } from "@novu-query/contract/types";
import { type AppOptions, createApp } from "@novu-query/express";
import express, { type Request } from "express";
import type { Operations, ServiceOptions } from "../support/model-service.js";

export interface Fault {
  id: string;
  /** What the implementation gets wrong, as a reviewer would say it. */
  description: string;
  /** The rules whose failure counts as catching it. */
  caughtBy: string[];
  /**
   * The skeleton's pipeline refuses the request before the handler with the fault runs (the contract's refusals
   * without data, contract/model/inputs/): on the skeleton the fault cannot be seen, and the rules named pass. A
   * service of another making can still have it, and the rules catch it there.
   */
  preventedByPipeline?: true;
  service: ServiceOptions;
}

/** The list's filters, as the contract declares them (contract/model/inputs/). */
const listFilters = Object.entries(inputs.listNotifications.query as Record<string, { kind: string }>)
  .filter(([, declaration]) => declaration.kind === "filter" || declaration.kind === "subscriber-filter")
  .map(([name]) => name);

type Search = Operations["search"];
type List = Operations["list"];

const searchWith = (change: (...args: Parameters<Search>) => ReturnType<Search>): ServiceOptions => ({
  operations: { search: change },
});
const listWith = (change: (...args: Parameters<List>) => ReturnType<List>): ServiceOptions => ({
  operations: { list: change },
});
/** A search answered as the model would for another query. */
const searchQuery = (change: (query: Parameters<Search>[1]) => Parameters<Search>[1]) =>
  searchWith((rows, query, options) => searchSubscribers(rows, change(query), options));
/** A list answered as the model would for another query. */
const listQuery = (change: (query: Parameters<List>[2]) => Parameters<List>[2]) =>
  listWith((notifications, subscribers, query, options) =>
    listNotifications(notifications, subscribers, change(query), options),
  );
/**
 * The skeleton's app behind a step of the service's own that changes each request first: a fault of an HTTP layer
 * that reads headers or the query string its own way before the contract's rules see them.
 */
const inFront = (change: (req: Request) => void): ServiceOptions => ({
  host: {
    basePath: "",
    app: (options: AppOptions) => {
      const app = express();
      app.use((req, _res, next) => {
        change(req);
        next();
      });
      app.use(createApp(options));
      return app;
    },
  },
});
/** The request's query string rewritten by `change` (given and giving `key=value` pairs as sent). */
const queryRewritten = (change: (pairs: string[]) => string[]) =>
  inFront((req) => {
    const [path, query] = req.url.split("?");
    if (query === undefined) return;
    // The skeleton reads the query as sent, from `originalUrl` (express/query-as-sent.ts).
    req.url = `${path}?${change(query.split("&")).join("&")}`;
    req.originalUrl = req.url;
  });
/** A header rewritten by `change` when the request has it (in `rawHeaders` too, which the skeleton's key reads). */
const headerRewritten = (name: string, change: (value: string) => string) =>
  inFront((req) => {
    const value = req.headers[name];
    if (typeof value === "string") req.headers[name] = change(value);
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i]?.toLowerCase() === name) req.rawHeaders[i + 1] = change(req.rawHeaders[i + 1] ?? "");
    }
  });

/** A search whose filter on one field is answered by rows filtered another way. */
const searchFilteredBy = (
  field: "email" | "phone" | "name" | "subscriberId",
  keep: (s: Subscriber, term: string) => boolean,
) =>
  searchWith((rows, query, options) => {
    const term = query[field];
    if (term === undefined) return searchSubscribers(rows, query, options);
    return searchSubscribers(
      rows.filter((s) => keep(s, term)),
      { ...query, [field]: undefined },
      options,
    );
  });
/** A list whose filter on one parameter is answered by notifications filtered another way. */
const listFilteredBy = <K extends keyof Parameters<List>[2]>(
  parameter: K,
  keep: (n: Notification, value: NonNullable<Parameters<List>[2][K]>, subscribers: readonly Subscriber[]) => boolean,
) =>
  listWith((notifications, subscribers, query, options) => {
    const value = query[parameter];
    if (value === undefined) return listNotifications(notifications, subscribers, query, options);
    const kept = notifications.filter((n) => keep(n, value as NonNullable<typeof value>, subscribers));
    return listNotifications(kept, subscribers, { ...query, [parameter]: undefined }, options);
  });
const emptyWhen = (parameter: string) =>
  listWith((notifications, subscribers, query, options) =>
    listNotifications(
      (query as Record<string, unknown>)[parameter] === undefined ? notifications : [],
      subscribers,
      query,
      options,
    ),
  );
const allRows: Operations["scope"] = (rows) => rows;
const deepMerge = (base: unknown, patch: unknown): unknown =>
  base && patch && typeof base === "object" && typeof patch === "object" && !Array.isArray(patch)
    ? Object.fromEntries(
        [...new Set([...Object.keys(base), ...Object.keys(patch)])].map((key) => [
          key,
          key in patch
            ? deepMerge((base as Record<string, unknown>)[key], (patch as Record<string, unknown>)[key])
            : (base as Record<string, unknown>)[key],
        ]),
      )
    : patch;

export const faults: Fault[] = [
  // Subscriber search filters
  {
    id: "search-email-ignored",
    description: "the email filter is ignored",
    caughtBy: ["search.filter.email"],
    service: searchQuery((q) => ({ ...q, email: undefined })),
  },
  {
    id: "search-email-empty",
    description: "the email filter always answers an empty page",
    caughtBy: ["search.filter.email"],
    service: searchWith((rows, q, o) => searchSubscribers(q.email ? [] : rows, q, o)),
  },
  {
    id: "search-email-case-sensitive",
    description: "the email filter matches case-sensitively",
    caughtBy: ["search.filter.email"],
    service: searchFilteredBy("email", (s, t) => (s.email ?? "").includes(t)),
  },
  {
    id: "search-phone-ignored",
    description: "the phone filter is ignored",
    caughtBy: ["search.filter.phone"],
    service: searchQuery((q) => ({ ...q, phone: undefined })),
  },
  {
    id: "search-phone-prefix",
    description: "the phone filter matches a prefix only",
    caughtBy: ["search.filter.phone"],
    service: searchFilteredBy("phone", (s, t) => (s.phone ?? "").toLowerCase().startsWith(t.toLowerCase())),
  },
  {
    id: "search-name-ignored",
    description: "the name filter is ignored",
    caughtBy: ["search.filter.name"],
    service: searchQuery((q) => ({ ...q, name: undefined })),
  },
  {
    id: "search-name-first-only",
    description: "the name filter searches the first name only",
    caughtBy: ["search.filter.name"],
    service: searchFilteredBy("name", (s, t) => containsIgnoringCase(s.firstName, t)),
  },
  {
    id: "search-subscriber-id-loose",
    description: "subscriberId matches ignoring case",
    caughtBy: ["search.filter.subscriberId"],
    service: searchFilteredBy("subscriberId", (s, t) => s.subscriberId.toLowerCase() === t.toLowerCase()),
  },
  {
    id: "search-filters-ored",
    description: "email and name are ORed instead of ANDed",
    caughtBy: ["search.filter.combined"],
    service: searchWith((rows, q, o) => {
      if (q.email === undefined || (q.name === undefined && q.subscriberId === undefined))
        return searchSubscribers(rows, q, o);
      const either = rows.filter(
        (s) =>
          containsIgnoringCase(s.email, q.email) ||
          containsIgnoringCase(`${s.firstName ?? ""} ${s.lastName ?? ""}`, q.name) ||
          s.subscriberId === q.subscriberId,
      );
      return searchSubscribers(either, { ...q, email: undefined, name: undefined, subscriberId: undefined }, o);
    }),
  },
  {
    id: "search-like-wildcards",
    description: "% and _ in a filter are LIKE wildcards",
    caughtBy: ["search.filter.literal"],
    service: searchWith((rows, q, o) => {
      const wild = (term: string | undefined) => term !== undefined && /[%_]/.test(term);
      if (!wild(q.email) && !wild(q.name)) return searchSubscribers(rows, q, o);
      const pattern = (term: string) =>
        new RegExp(
          term
            .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
            .replace(/%/g, ".*")
            .replace(/_/g, "."),
          "i",
        );
      const kept = rows.filter(
        (s) =>
          (q.email === undefined || pattern(q.email).test(s.email ?? "")) &&
          (q.name === undefined || pattern(q.name).test(`${s.firstName ?? ""} ${s.lastName ?? ""}`)),
      );
      return searchSubscribers(kept, { ...q, email: undefined, name: undefined }, o);
    }),
  },

  // Cursors and order
  {
    id: "cursor-after-skips-one",
    description: "a page after a cursor starts one row too late",
    caughtBy: ["search.order."],
    service: searchWith((rows, q, o) => {
      const answer = searchSubscribers(rows, q, o);
      if (q.after === undefined || answer.status !== 200 || !answer.body.data[0]) return answer;
      return searchSubscribers(rows, { ...q, after: answer.body.data[0]._id, includeCursor: false }, o);
    }),
  },
  {
    id: "cursor-before-as-after",
    description: "before is read as after (the page after the cursor)",
    caughtBy: ["search.order."],
    service: searchQuery((q) => (q.before === undefined ? q : { ...q, after: q.before, before: undefined })),
  },
  {
    id: "cursor-include-ignored",
    description: "includeCursor is ignored",
    caughtBy: ["search.cursor.include"],
    service: searchQuery((q) => ({ ...q, includeCursor: false })),
  },
  {
    id: "cursor-previous-never-set",
    description: "previous is always null",
    caughtBy: ["search.order."],
    service: searchWith((rows, q, o) => {
      const answer = searchSubscribers(rows, q, o);
      return answer.status === 200 ? { ...answer, body: { ...answer.body, previous: null } } : answer;
    }),
  },
  {
    id: "cursor-next-always-set",
    description: "next is set on the last page too",
    caughtBy: ["search.order."],
    service: searchWith((rows, q, o) => {
      const answer = searchSubscribers(rows, q, o);
      return answer.status === 200
        ? { ...answer, body: { ...answer.body, next: answer.body.data.at(-1)?._id ?? null } }
        : answer;
    }),
  },
  {
    id: "cursor-unknown-from-start",
    description: "an unknown cursor gives the first page",
    caughtBy: ["search.cursor.unknown"],
    service: searchWith((rows, q, o) => {
      const cursor = q.after ?? q.before;
      const known = cursor === undefined || rows.some((s) => s._id === cursor && !s.deleted);
      return searchSubscribers(rows, known ? q : { ...q, after: undefined, before: undefined }, o);
    }),
  },
  {
    id: "order-direction-ignored",
    description: "orderDirection is ignored (always descending)",
    caughtBy: ["search.order."],
    service: searchQuery((q) => ({ ...q, orderDirection: "DESC" })),
  },
  {
    id: "order-by-ignored",
    description: "orderBy is ignored (always _id)",
    caughtBy: ["search.order."],
    service: searchQuery((q) => ({ ...q, orderBy: "_id" })),
  },

  // Counts
  {
    id: "count-page-size",
    description: "totalCount is the number of rows on the page",
    caughtBy: ["search.count"],
    service: searchWith((rows, q, o) => {
      const answer = searchSubscribers(rows, q, o);
      return answer.status === 200
        ? { ...answer, body: { ...answer.body, totalCount: answer.body.data.length } }
        : answer;
    }),
  },
  {
    id: "count-ignores-filters",
    description: "totalCount counts every subscriber, filtered or not",
    caughtBy: ["search.count"],
    service: searchWith((rows, q, o) => {
      const answer = searchSubscribers(rows, q, o);
      const all = rows.filter((s) => !s.deleted).length;
      return answer.status === 200 ? { ...answer, body: { ...answer.body, totalCount: all } } : answer;
    }),
  },
  {
    id: "count-capped-early",
    description: "totalCountCapped is set at 50 rather than 50,000",
    caughtBy: ["search.count"],
    service: searchWith((rows, q) => searchSubscribers(rows, q, { totalCountCap: 50 })),
  },

  // Notification filters
  {
    id: "list-channels-ignored",
    description: "the channels filter is ignored",
    caughtBy: ["list.filter.channels"],
    service: listQuery((q) => ({ ...q, channels: undefined })),
  },
  {
    id: "list-channels-empty",
    description: "the channels filter always answers an empty page",
    caughtBy: ["list.filter.channels"],
    service: emptyWhen("channels"),
  },
  {
    id: "list-channels-all",
    description: "channels requires every channel given instead of any",
    caughtBy: ["list.filter.channels"],
    service: listFilteredBy("channels", (n, channels) => channels.every((c) => n.channels.includes(c))),
  },
  {
    id: "list-severity-ignored",
    description: "the severity filter is ignored",
    caughtBy: ["list.filter.severity"],
    service: listQuery((q) => ({ ...q, severity: undefined })),
  },
  {
    id: "list-severity-empty",
    description: "the severity filter always answers an empty page",
    caughtBy: ["list.filter.severity"],
    service: emptyWhen("severity"),
  },
  {
    id: "list-severity-none-unmatched",
    description: "severity=none matches nothing",
    caughtBy: ["list.filter.severity"],
    service: listFilteredBy("severity", (n, levels) => n.severity !== "none" && levels.includes(n.severity)),
  },
  {
    id: "list-templates-ignored",
    description: "the templates filter is ignored",
    caughtBy: ["list.filter.templates"],
    service: listQuery((q) => ({ ...q, templates: undefined })),
  },
  {
    id: "list-transaction-ignored",
    description: "the transactionId filter is ignored",
    caughtBy: ["list.filter.transactionId"],
    service: listQuery((q) => ({ ...q, transactionId: undefined })),
  },
  {
    id: "list-topic-ignored",
    description: "the topicKey filter is ignored",
    caughtBy: ["list.filter.topicKey"],
    service: listQuery((q) => ({ ...q, topicKey: undefined })),
  },
  {
    id: "list-emails-ignored",
    description: "the emails filter is ignored",
    caughtBy: ["list.filter.emails"],
    service: listQuery((q) => ({ ...q, emails: undefined })),
  },
  {
    id: "list-emails-empty",
    description: "the emails filter always answers an empty page",
    caughtBy: ["list.filter.emails"],
    service: emptyWhen("emails"),
  },
  {
    id: "list-emails-ignoring-case",
    description: "emails matches ignoring case",
    caughtBy: ["list.filter.emails"],
    service: listQuery((q) => ({ ...q, emails: undefined, search: q.emails?.[0] })),
  },
  {
    id: "list-subscriber-ids-empty",
    description: "the subscriberIds filter always answers an empty page",
    caughtBy: ["list.filter.subscriberIds"],
    service: emptyWhen("subscriberIds"),
  },
  {
    id: "list-search-ignored",
    description: "the search filter is ignored",
    caughtBy: ["list.filter.search"],
    service: listQuery((q) => ({ ...q, search: undefined })),
  },
  {
    id: "list-subscriber-filters-anded",
    description: "emails and subscriberIds are ANDed instead of ORed",
    caughtBy: ["list.filter.combined"],
    service: listWith((n, s, q, o) => {
      if (!q.emails || !q.subscriberIds) return listNotifications(n, s, q, o);
      const both = listNotifications(n, s, { ...q, emails: undefined, limit: 50, page: 0 }, o);
      const ids = new Set(both.status === 200 ? both.body.data.map((x) => x._id) : []);
      return listNotifications(
        n.filter((x) => ids.has(x._id)),
        s,
        { ...q, subscriberIds: undefined },
        o,
      );
    }),
  },

  // Dates and pages
  {
    id: "list-after-exclusive",
    description: "after is an exclusive bound",
    caughtBy: ["list.dates.inclusive"],
    service: listQuery((q) =>
      q.after === undefined ? q : { ...q, after: new Date(Date.parse(q.after) + 1).toISOString() },
    ),
  },
  {
    id: "list-before-exclusive",
    description: "before is an exclusive bound",
    caughtBy: ["list.dates.inclusive"],
    service: listQuery((q) =>
      q.before === undefined ? q : { ...q, before: new Date(Date.parse(q.before) - 1).toISOString() },
    ),
  },
  {
    id: "list-before-ignored",
    description: "before is ignored",
    caughtBy: ["list.dates.inclusive"],
    service: listQuery((q) => ({ ...q, before: undefined })),
  },
  {
    id: "list-after-ignored",
    description: "after is ignored",
    caughtBy: ["list.dates.forms"],
    service: listQuery((q) => ({ ...q, after: undefined })),
  },
  {
    id: "list-after-ignored-unfiltered",
    description: "after is ignored on the list without filters (a fast path that forgets it)",
    caughtBy: ["list.dates.forms"],
    service: listQuery((q) =>
      listFilters.some((name) => q[name as keyof typeof q] !== undefined) ? q : { ...q, after: undefined },
    ),
  },
  {
    id: "list-dates-reversed-accepted",
    description: "after later than before is answered with an empty page",
    caughtBy: ["list.dates.reversed"],
    preventedByPipeline: true,
    service: listQuery((q) => (q.after && q.before && q.after > q.before ? { ...q, after: q.before } : q)),
  },
  {
    id: "list-page-offset",
    description: "page is an offset in rows, not in pages",
    caughtBy: ["list.pages"],
    service: listWith((n, s, q, o) => {
      const page = q.page ?? 0;
      const limit = q.limit ?? 10;
      const all = listNotifications(n, s, { ...q, page: 0, limit: 50 + page + limit }, o);
      if (all.status !== 200) return all;
      return {
        status: 200,
        body: {
          ...all.body,
          data: all.body.data.slice(page, page + limit),
          hasMore: all.body.data.length > page + limit,
          page,
          pageSize: limit,
        },
      };
    }),
  },
  {
    id: "list-has-more-full-page",
    description: "hasMore is true whenever the page is full",
    caughtBy: ["list.pages"],
    service: listWith((n, s, q, o) => {
      const answer = listNotifications(n, s, q, o);
      return answer.status === 200
        ? { ...answer, body: { ...answer.body, hasMore: answer.body.data.length === answer.body.pageSize } }
        : answer;
    }),
  },
  {
    id: "list-oldest-first",
    description: "the list is oldest first",
    caughtBy: ["list.pages"],
    service: listWith((n, s, q, o) => {
      const answer = listNotifications(n, s, { ...q, page: 0, limit: 10_000 }, o);
      if (answer.status !== 200) return answer;
      const page = q.page ?? 0;
      const limit = q.limit ?? 10;
      const rows = [...answer.body.data].reverse();
      return {
        status: 200,
        body: {
          data: rows.slice(page * limit, page * limit + limit),
          hasMore: rows.length > page * limit + limit,
          page,
          pageSize: limit,
        },
      };
    }),
  },
  {
    id: "list-retention-day-late",
    description: "the 402 names the window's first day but refuses that day too",
    caughtBy: ["list.retention"],
    service: listWith((n, s, q, o) => {
      const earliest = retentionStart(o?.now ?? new Date(), o?.retentionDays)?.getTime();
      const after = q.after === undefined ? undefined : Date.parse(q.after);
      if (earliest !== undefined && after !== undefined && after >= earliest && after < earliest + 86_400_000) {
        const message = messages.retentionExceeded(new Date(earliest).toISOString().slice(0, 10));
        return { status: 402, example: "PaymentRequiredRetention", message };
      }
      return listNotifications(n, s, q, o);
    }),
  },
  {
    id: "list-retention-default-unbounded",
    description: "without after, the list starts at the beginning of time, past the retention window",
    caughtBy: ["list.retention"],
    service: listWith((n, s, q, o) =>
      listNotifications(n, s, q.after === undefined ? { ...q, after: new Date(0).toISOString() } : q, {
        ...o,
        retentionDays: q.after === undefined ? null : o?.retentionDays,
      }),
    ),
  },

  // Environments
  {
    id: "search-across-environments",
    description: "search reads every environment",
    caughtBy: ["isolation.search", "isolation.list", "isolation."],
    service: {
      operations: { scope: (rows, env, op) => (op === "search" ? rows : rows.filter((r) => r._environmentId === env)) },
    },
  },
  {
    id: "list-across-environments",
    description: "the list reads every environment's notifications",
    caughtBy: ["isolation.list", "isolation."],
    service: {
      operations: {
        scope: (rows, env, op) =>
          op === "list" && rows.some((r) => "transactionId" in r) ? rows : rows.filter((r) => r._environmentId === env),
      },
    },
  },
  {
    id: "get-across-environments",
    description: "get by id ignores the caller's environment",
    caughtBy: ["isolation.get"],
    service: {
      operations: {
        scope: (rows, env, op) =>
          op === "get" ? allRows(rows, env, op) : rows.filter((r) => r._environmentId === env),
      },
    },
  },
  {
    id: "patch-across-environments",
    description: "a PATCH finds the subscriberId in any environment",
    caughtBy: ["isolation.patch"],
    service: {
      operations: { scope: (rows, env, op) => (op === "patch" ? rows : rows.filter((r) => r._environmentId === env)) },
    },
  },

  // PATCH
  {
    id: "patch-not-persisted",
    description: "a PATCH answers the change but does not keep it",
    caughtBy: ["patch.read-back", "patch."],
    service: { operations: { save() {} } },
  },
  {
    id: "patch-drops-phone",
    description: "a PATCH ignores the phone field",
    caughtBy: ["patch.read-back"],
    service: {
      operations: { patch: (rows, id, body, now) => patchSubscriber(rows, id, { ...body, phone: undefined }, now) },
    },
  },
  {
    id: "patch-no-version-bump",
    description: "a change does not bump __v",
    caughtBy: ["patch.read-back", "patch.merge"],
    service: {
      operations: {
        patch: (rows, id, body, now) => {
          const answer = patchSubscriber(rows, id, body, now);
          return answer.status === 200 && answer.changed
            ? { ...answer, body: { ...answer.body, __v: answer.body.__v - 1 } }
            : answer;
        },
      },
    },
  },
  {
    id: "patch-bumps-on-no-op",
    description: "a PATCH that changes nothing bumps __v and updatedAt",
    caughtBy: ["patch.no-op"],
    service: {
      operations: {
        patch: (rows, id, body, now) => {
          const answer = patchSubscriber(rows, id, body, now);
          return answer.status === 200 && !answer.changed
            ? {
                ...answer,
                changed: true,
                body: {
                  ...answer.body,
                  __v: answer.body.__v + 1,
                  updatedAt: now?.toISOString() ?? answer.body.updatedAt,
                },
              }
            : answer;
        },
      },
    },
  },
  {
    id: "patch-null-keeps",
    description: "null keeps a field instead of clearing it",
    caughtBy: ["patch.merge"],
    service: {
      operations: {
        patch: (rows, id, body, now) =>
          patchSubscriber(rows, id, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)), now),
      },
    },
  },
  {
    id: "patch-data-merged",
    description: "data is merged into the stored object instead of replacing it",
    caughtBy: ["patch.read-back"],
    service: {
      operations: {
        patch: (rows, id, body, now) => {
          const stored = rows.find((s) => s.subscriberId === id && !s.deleted);
          const data = body.data && stored?.data ? deepMerge(stored.data, body.data) : body.data;
          return patchSubscriber(
            rows,
            id,
            { ...body, ...(body.data !== undefined && { data: data as Record<string, unknown> }) },
            now,
          );
        },
      },
    },
  },
  {
    id: "patch-not-found-422",
    description: "an unknown subscriber is answered 422 instead of 404",
    caughtBy: ["patch.not-found"],
    service: {
      operations: {
        patch: (rows, id, body, now) => {
          const answer = patchSubscriber(rows, id, body, now);
          return answer.status === 404
            ? { ...answer, status: 422, errors: { "path.subscriberId": { messages: ["not found"], value: id } } }
            : answer;
        },
      },
    },
  },
  {
    id: "idempotency-not-replayed",
    description: "a retry with the same idempotency key is applied again",
    caughtBy: ["patch.idempotent-replay"],
    service: { idempotency: false },
  },
  {
    id: "search-both-cursors-accepted",
    description: "after and before together are accepted",
    caughtBy: ["search.both-cursors"],
    preventedByPipeline: true,
    service: searchQuery((q) => (q.after && q.before ? { ...q, before: undefined } : q)),
  },
  {
    id: "get-not-found-empty",
    description: "an unknown notification id is answered with some other notification",
    caughtBy: ["get.not-found"],
    service: {
      operations: {
        get: (rows, id) => {
          const answer = getNotification(rows, id);
          return answer.status === 404 && rows[0] ? { status: 200, body: rows[0] } : answer;
        },
      },
    },
  },

  // What real clients send that hand-picked values did not (issue 44): variants of every input, edges of the data.
  {
    id: "search-subscriberId-ignores-case",
    description: "subscriberId is matched ignoring case",
    caughtBy: ["search.filter.subscriberId"],
    service: searchFilteredBy("subscriberId", (s, t) => s.subscriberId.toLowerCase() === t.toLowerCase()),
  },
  {
    id: "search-subscriberId-prefix",
    description: "subscriberId matches every subscriberId that starts with it",
    caughtBy: ["search.filter.subscriberId"],
    service: searchFilteredBy("subscriberId", (s, t) => s.subscriberId.startsWith(t)),
  },
  {
    id: "search-term-trimmed",
    description: "a padded search term is trimmed before matching",
    caughtBy: ["search.filter.email", "search.filter.name", "search.filter.phone"],
    service: searchWith((rows, q, o) =>
      searchSubscribers(rows, { ...q, email: q.email?.trim(), name: q.name?.trim(), phone: q.phone?.trim() }, o),
    ),
  },
  {
    id: "search-name-missing-part-joined",
    description: "the searched name of a subscriber with a part missing has no space where the part would be",
    caughtBy: ["search.filter.name"],
    service: searchFilteredBy("name", (s, t) =>
      [s.firstName, s.lastName].filter(Boolean).join(" ").toLowerCase().includes(t.toLowerCase()),
    ),
  },
  {
    id: "search-ascii-only-case",
    description: "terms are compared ignoring the case of ASCII letters only (É and é differ)",
    caughtBy: ["search.filter.email", "search.filter.name", "search.filter.phone"],
    service: searchFilteredBy("name", (s, t) => {
      const lower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
      return lower(`${s.firstName ?? ""} ${s.lastName ?? ""}`).includes(lower(t));
    }),
  },
  {
    id: "search-limit-max-short",
    description: "a page at the maximum limit holds one row fewer",
    caughtBy: ["search.limit.values"],
    service: searchWith((rows, q, o) => searchSubscribers(rows, q.limit === 100 ? { ...q, limit: 99 } : q, o)),
  },
  {
    id: "search-cursor-must-pass-filter",
    description: "a cursor whose row does not pass the filters is answered with an empty page",
    caughtBy: ["search.cursor.values"],
    service: searchWith((rows, q, o) => {
      const cursor = q.after ?? q.before;
      const filtered = searchSubscribers(rows, { ...q, after: undefined, before: undefined, limit: 100 }, o);
      const passes = filtered.status === 200 && filtered.body.data.some((s) => s._id === cursor);
      return cursor !== undefined && !passes
        ? { status: 200, body: { data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false } }
        : searchSubscribers(rows, q, o);
    }),
  },
  {
    id: "search-cursor-deleted-accepted",
    description: "a deleted subscriber's _id is a cursor like any other",
    caughtBy: ["search.cursor.values"],
    service: searchWith((rows, q, o) => {
      const cursor = rows.find((s) => s._id === (q.after ?? q.before) && s.deleted);
      return searchSubscribers(cursor ? rows.map((s) => (s === cursor ? { ...s, deleted: false } : s)) : rows, q, o);
    }),
  },
  {
    id: "list-transactionId-ignores-case",
    description: "transactionId is matched ignoring case",
    caughtBy: ["list.filter.transactionId"],
    service: listFilteredBy("transactionId", (n, t) => n.transactionId.toLowerCase() === String(t).toLowerCase()),
  },
  {
    id: "list-topicKey-prefix",
    description: "topicKey matches every key that starts with it",
    caughtBy: ["list.filter.topicKey"],
    service: listFilteredBy("topicKey", (n, t) =>
      (n.topics ?? []).some((topic) => topic.topicKey.startsWith(String(t))),
    ),
  },
  {
    id: "list-emails-ignore-case",
    description: "emails matches e-mails ignoring case",
    caughtBy: ["list.filter.emails"],
    service: listFilteredBy("emails", (n, emails, subscribers) =>
      subscribers.some(
        (s) =>
          s._id === n._subscriberId &&
          !s.deleted &&
          (emails as string[]).some((e) => e.toLowerCase() === (s.email ?? "").toLowerCase()),
      ),
    ),
  },
  {
    id: "list-limit-max-short",
    description: "a page at the maximum limit holds one row fewer",
    caughtBy: ["list.page.values"],
    service: listWith((n, s, q, o) => listNotifications(n, s, q.limit === 50 ? { ...q, limit: 49 } : q, o)),
  },
  {
    id: "list-dates-offset-ignored",
    description: "a date-time's offset is ignored (`+01:00` read as UTC)",
    caughtBy: ["list.dates.forms"],
    preventedByPipeline: true,
    service: listQuery((q) => ({
      ...q,
      after: q.after?.replace(/[+-]\d{2}(:?\d{2})?$/, "Z"),
      before: q.before?.replace(/[+-]\d{2}(:?\d{2})?$/, "Z"),
    })),
  },
  {
    id: "patch-email-lowercased",
    description: "an e-mail is stored in lower case, not as sent",
    caughtBy: ["patch.fields"],
    service: {
      operations: {
        patch: (rows, id, body, now) =>
          patchSubscriber(
            rows,
            id,
            typeof body.email === "string" ? { ...body, email: body.email.toLowerCase() } : body,
            now,
          ),
      },
    },
  },
  {
    id: "patch-empty-string-nulled",
    description: "an empty string is stored as null",
    caughtBy: ["patch.fields"],
    service: {
      operations: {
        patch: (rows, id, body, now) =>
          patchSubscriber(
            rows,
            id,
            Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v === "" ? null : v])),
            now,
          ),
      },
    },
  },
  {
    id: "patch-time-zone-canonicalised",
    description: "a time-zone alias is stored as its canonical name (US/Pacific as America/Los_Angeles)",
    caughtBy: ["patch.fields"],
    service: {
      operations: {
        patch: (rows, id, body, now) =>
          patchSubscriber(
            rows,
            id,
            body.timezone === "US/Pacific" ? { ...body, timezone: "America/Los_Angeles" } : body,
            now,
          ),
      },
    },
  },
  {
    id: "patch-updatedAt-not-moved",
    description: "a real change keeps updatedAt as it was",
    caughtBy: ["patch.fields", "patch.merge"],
    service: {
      operations: {
        patch: (rows, id, body, now) => {
          const answer = patchSubscriber(rows, id, body, now);
          const before = rows.find((s) => s.subscriberId === id && !s.deleted);
          return answer.status === 200 && before
            ? { ...answer, body: { ...answer.body, updatedAt: before.updatedAt } }
            : answer;
        },
      },
    },
  },
  {
    id: "idempotency-keys-shared-by-environments",
    description:
      "an idempotency key is one key across environments: the second environment's PATCH gets the first's answer",
    caughtBy: ["isolation.idempotency-key"],
    service: { idempotencyScope: () => "everyone" },
  },
  {
    id: "get-execution-details-reversed",
    description: "get answers a job's executionDetails newest first, unlike the list",
    caughtBy: ["get.whole"],
    service: {
      operations: {
        get: (rows, id, options) => {
          const answer = getNotification(rows, id, options);
          if (answer.status !== 200) return answer;
          const jobs = answer.body.jobs.map((job) => ({
            ...job,
            executionDetails: [...job.executionDetails].reverse(),
          }));
          return { ...answer, body: { ...answer.body, jobs } };
        },
      },
    },
  },

  // How requests are written (the gaps the mutation run of 2026-12-07 found: docs/mutation-analysis.md).
  {
    id: "auth-scheme-any-case",
    description: "the Authorization scheme is read in any case (HTTP's rule, not Novu's): `apikey <key>` is accepted",
    caughtBy: ["auth.header-forms"],
    service: headerRewritten("authorization", (value) => value.replace(/^apikey(?=\s)/i, "ApiKey")),
  },
  {
    id: "auth-key-first-word",
    description: "the key is the word after the scheme, whatever follows it: `ApiKey <key> <more>` is accepted",
    caughtBy: ["auth.header-forms"],
    service: headerRewritten("authorization", (value) => value.split(/\s+/).slice(0, 2).join(" ")),
  },
  {
    id: "auth-one-space-only",
    description: "the key is what follows `ApiKey ` exactly: two spaces or a tab make a key that is not found",
    caughtBy: ["auth.header-forms"],
    service: headerRewritten("authorization", (value) =>
      /^ApiKey(?! \S)\s/.test(value) ? `ApiKey ${value.slice(7)}-as-sent` : value,
    ),
  },
  {
    id: "query-unknown-keys-ignored",
    description: "a query key the operation does not have is ignored, as most frameworks do, not refused",
    caughtBy: ["request.query-keys."],
    service: queryRewritten((pairs) => pairs.filter((pair) => !/^(foo|constructor|__proto__)\b/.test(pair))),
  },
  {
    id: "query-brackets-read-as-list",
    description: "a bracketed key is read as qs reads it (`channels[]=a` is `channels=a`), not refused",
    caughtBy: ["request.query-keys."],
    service: queryRewritten((pairs) =>
      pairs.map((pair) => pair.replace(/^([^=%]+)(?:%5B|\[)[^=]*(?:%5D|\])=/i, "$1=")),
    ),
  },
  {
    id: "content-type-charset-ignored",
    description: "a JSON body's charset is not read: `application/json; charset=utf-16` is decoded as UTF-8",
    caughtBy: ["patch.content-types"],
    service: headerRewritten("content-type", (value) => value.replace(/;.*$/, "")),
  },
  {
    id: "content-type-exact",
    description: "the Content-Type must be exactly `application/json`: with a charset, or in capitals, it is 415",
    caughtBy: ["patch.content-types"],
    service: headerRewritten("content-type", (value) => (value === "application/json" ? value : "text/plain")),
  },
  {
    id: "list-leap-second-next-minute",
    description: "a leap second (`23:59:60Z`) is read as PostgreSQL reads it, the next minute's first instant",
    caughtBy: ["list.dates.instant", "list.dates.forms"],
    service: queryRewritten((pairs) =>
      pairs.map((pair) => {
        const [key = "", value = ""] = pair.split("=");
        const leap = /^(.*)T(\d\d):(\d\d):60Z$/.exec(decodeURIComponent(value));
        if (!leap) return pair;
        const next = new Date(Date.parse(`${leap[1]}T${leap[2]}:${leap[3]}:59Z`) + 1000).toISOString();
        return `${key}=${encodeURIComponent(next)}`;
      }),
    ),
  },
  {
    id: "cursor-carried-time-ignored",
    description: "a cursor's carried `updatedAt` is ignored: the walk goes on from where its subscriber is now",
    caughtBy: ["search.cursor.values"],
    service: searchQuery((query) => ({
      ...query,
      after: query.after?.split("_")[0],
      before: query.before?.split("_")[0],
    })),
  },
  {
    id: "cursor-carried-time-clamped",
    description: "a cursor carrying a time outside the years 0000-9999 is clamped to them, not refused",
    caughtBy: ["search.cursor.values"],
    preventedByPipeline: true,
    service: searchQuery((query) => {
      const clamp = (cursor: string | undefined) => {
        const [id, carried] = cursor?.split("_") ?? [];
        if (carried === undefined) return cursor;
        const ms = Math.min(
          Date.parse("9999-12-31T23:59:59.999Z"),
          Math.max(Date.parse("0000-01-01T00:00:00Z"), Number(carried)),
        );
        return `${id}_${ms}`;
      };
      return { ...query, after: clamp(query.after), before: clamp(query.before) };
    }),
  },
];
