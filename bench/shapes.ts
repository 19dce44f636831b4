/**
 * The query shapes the benchmark measures. Each shape is one request, run two ways: straight against the store
 * (what the database costs) and over HTTP against the server (what a client sees), with the same parameters.
 */
import type { NotificationQuery } from "../server/store/notifications.js";
import type { Store } from "../server/store/store.js";
import type { SubscriberSearch } from "../server/store/subscribers.js";
import type { BenchContext } from "./context.js";

export interface HttpRequest {
  method: "GET" | "PATCH";
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface Shape {
  id: string;
  label: string;
  /** Run against the store; `i` counts the runs (a patch changes something every time). */
  store(store: Store, i: number): Promise<unknown>;
  http(i: number): HttpRequest;
}

type SearchParams = Partial<Omit<SubscriberSearch, "includeCursor">>;
type ListParams = Partial<Omit<NotificationQuery, "after" | "before">>;

function queryString(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) query.append(name, String(item));
    else if (value !== undefined) query.append(name, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The shape of that id among `shapes`; an unknown id is an error, named. */
export function shapeById(shapes: readonly Shape[], id: string): Shape {
  const shape = shapes.find((candidate) => candidate.id === id);
  if (!shape) throw new Error(`no bench shape ${id}`);
  return shape;
}

export function benchShapes(ctx: BenchContext): Shape[] {
  const env = ctx.environmentId;
  const search = (id: string, label: string, params: SearchParams): Shape => ({
    id: `search.${id}`,
    label,
    store: (store) =>
      store.subscribers.search(env, {
        limit: 10,
        orderBy: "_id",
        orderDirection: "DESC",
        includeCursor: false,
        ...params,
      }),
    http: () => ({ method: "GET", path: `/v2/subscribers${queryString(params)}` }),
  });
  const list = (id: string, label: string, params: ListParams): Shape => ({
    id: `list.${id}`,
    label,
    store: (store) =>
      store.notifications.pageText(env, { page: 0, limit: 10, after: new Date(0), before: new Date(), ...params }),
    http: () => ({ method: "GET", path: `/v1/notifications${queryString(params)}` }),
  });
  const patchTarget = (i: number) => ctx.subscriberIds[i % ctx.subscriberIds.length] as string;
  const patchBody = (i: number) => ({ data: { plan: "team", benchRun: i, at: Date.now() } });

  return [
    search("default", "subscribers, no filter (_id DESC)", {}),
    search("idAsc", "orderBy _id ASC", { orderDirection: "ASC" }),
    search("createdDesc", "orderBy createdAt DESC", { orderBy: "createdAt" }),
    search("createdAsc", "orderBy createdAt ASC", { orderBy: "createdAt", orderDirection: "ASC" }),
    search("updatedDesc", "orderBy updatedAt DESC", { orderBy: "updatedAt" }),
    search("updatedAsc", "orderBy updatedAt ASC", { orderBy: "updatedAt", orderDirection: "ASC" }),
    search("secondPage", "second page (after the 10th row)", { after: ctx.firstCursor }),
    search("deepCursor", `deep cursor (after row ${ctx.deepCursorRow.toLocaleString("en")})`, {
      after: ctx.deepCursor,
    }),
    search("backwards", `backwards page (before row ${ctx.deepCursorRow.toLocaleString("en")})`, {
      before: ctx.deepCursor,
    }),
    search("email", "email, one match", { email: ctx.email }),
    search("emailOverCap", 'email "example.com" (more matches than the count cap, a domain)', { email: "example.com" }),
    search("emailOverCapLocal", 'email "an" (more matches than the count cap, not a domain)', { email: "an" }),
    search("emailShortRare", 'email "o0" (two characters, few matches)', { email: "o0" }),
    search("nameOneChar", 'name "k" (one character, more matches than the count cap)', { name: "k" }),
    search("emailManyUnderCap", 'email "user" (tens of thousands of matches, under the count cap)', { email: "user" }),
    search("name", `name "${ctx.lastName}"`, { name: ctx.lastName }),
    search("phone", `phone "${ctx.phoneDigits}"`, { phone: ctx.phoneDigits }),
    search("subscriberId", "subscriberId, exact", { subscriberId: ctx.subscriberIds[0] as string }),
    search("nameCreatedAsc", `name "${ctx.lastName}", orderBy createdAt ASC`, {
      name: ctx.lastName,
      orderBy: "createdAt",
      orderDirection: "ASC",
    }),

    list("default", "notifications, no filter", {}),
    list("channelEmail", "channels=email", { channels: ["email"] }),
    list("channelSms", "channels=sms", { channels: ["sms"] }),
    list("template", "templates=<one workflow>", { templates: [ctx.templateId] }),
    list("severityHigh", "severity=high", { severity: ["high"] }),
    list("severityNone", "severity=none (includes no severity)", { severity: ["none"] }),
    list("subscriber", "subscriberIds=<one>", { subscriberIds: [ctx.subscriberIds[0] as string] }),
    list("email", "emails=<one>", { emails: [ctx.email] }),
    list("search", "search=<an email>", { search: ctx.email }),
    list("combined", "channels=in_app & severity=high & templates=<one>", {
      channels: ["in_app"],
      severity: ["high"],
      templates: [ctx.templateId],
    }),
    list("transactionId", "transactionId (rare)", { transactionId: ctx.transactionId }),
    list("topicKeyMissing", "topicKey with no notifications (rare)", { topicKey: "retired-topic" }),
    list("severityChannelEmpty", "severity=low & channels=sms (no matches)", { severity: ["low"], channels: ["sms"] }),
    list("page100", "page 100 (offset 1,000)", { page: 100 }),
    list("deepPage", "deep page 1000 (offset 10,000)", { page: 1000 }),

    {
      id: "get.byId",
      label: "get notification by id",
      store: (store) => store.notifications.answer(env, ctx.notificationId),
      http: () => ({ method: "GET", path: `/v1/notifications/${ctx.notificationId}` }),
    },
    {
      id: "patch.data",
      label: "patch subscriber data",
      // As the handler runs a PATCH with a key (D68): one call that claims a new key, patches and stores the answer.
      store: (store, i) =>
        store.subscribers.patchAtOnce(env, patchTarget(i), patchBody(i), {
          key: `bench-store-${process.pid}-${Date.now()}-${i}`,
          fingerprint: "0".repeat(64),
          ttlSeconds: 86_400,
        }),
      http: (i) => ({
        method: "PATCH",
        path: `/v2/subscribers/${encodeURIComponent(patchTarget(i))}`,
        body: JSON.stringify(patchBody(i)),
        headers: { "content-type": "application/json", "idempotency-key": `bench-${process.pid}-${Date.now()}-${i}` },
      }),
    },
  ];
}
