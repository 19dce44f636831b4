/**
 * An implementation of the contract as a backend team would build it on the skeleton: `@novu-query/express` for the
 * pipeline, the contract's model for the semantics, arrays for the rows of two environments. Each operation goes
 * through a replaceable function, so that the fault catalogue (test/conformance/fault-catalogue.ts) can give it one
 * small, realistic fault at a time and the conformance suite can be held to catching it.
 */
import type { AddressInfo } from "node:net";
import { createFactories } from "@novu-query/contract/factories";
import {
  type Answer,
  getNotification,
  inEnvironment,
  listNotifications,
  patchSubscriber,
  searchSubscribers,
} from "@novu-query/contract/model";
import type { Notification, Subscriber } from "@novu-query/contract/types";
import {
  type AppOptions,
  type AuthContext,
  createApp,
  createHttpServer,
  type Handlers,
  handler,
  MemoryIdempotencyStore,
} from "@novu-query/express";
import type { Express } from "express";

/** The model's operations as the service calls them; a fault replaces one with a version of its own. */
export interface Operations {
  /** The rows of the caller's environment that an operation reads. */
  scope<Row extends { _environmentId: string }>(
    rows: Row[],
    environmentId: string,
    operation: "search" | "patch" | "list" | "get",
  ): Row[];
  search: typeof searchSubscribers;
  patch: typeof patchSubscriber;
  list: typeof listNotifications;
  get: typeof getNotification;
  /** Writes a patched subscriber back to the rows. */
  save(rows: Subscriber[], patched: Subscriber): void;
}

export const modelOperations: Operations = {
  scope: (rows, environmentId) => inEnvironment(rows, environmentId),
  search: searchSubscribers,
  patch: patchSubscriber,
  list: listNotifications,
  get: getNotification,
  save(rows, patched) {
    rows[rows.findIndex((s) => s._id === patched._id)] = patched;
  },
};

export interface ServiceOptions {
  /** What the fault changes; the rest is the model's. */
  operations?: Partial<Operations>;
  /** False to answer a retried idempotency key as a new request (no replay). */
  idempotency?: boolean;
  /** Whose keys an idempotency key is among: by default the caller's environment, as the spec says. */
  idempotencyScope?: () => string;
  /**
   * The app the service runs in, given the router's options: by default the skeleton's own `createApp`; a host app
   * of the test's making mounts `createRouter(options)` where it likes. `basePath` is where (default: the root).
   */
  host?: { app: (options: AppOptions) => Express; basePath: string };
}

export interface ModelService {
  baseUrl: string;
  /** Keys of the two environments. */
  apiKey: string;
  otherApiKey: string;
  data: { subscribers: Subscriber[]; notifications: Notification[] };
  close(): Promise<void>;
}

const environments = { "key-production": "e00000000000000000000001", "key-development": "e00000000000000000000002" };
/** History the environments may read: 60 days, so that the list answers 402 for an older window. */
const retentionDays = 60;

/**
 * Two environments' data from the factories, with what real data has and sampling may step around: ties on
 * timestamps, a few deleted subscribers, names with a part missing, e-mails stored in mixed case.
 */
export function serviceData(): ModelService["data"] {
  const subscribers: Subscriber[] = [];
  const notifications: Notification[] = [];
  for (const [index, environmentId] of Object.values(environments).entries()) {
    const make = createFactories({ seed: 31 + index, now: "2026-11-20T00:00:00.000Z" });
    // More subscribers than the largest page in one environment: a page at the maximum limit shows what it holds.
    const theirs = make.subscribers(index === 0 ? 120 : 60).map((s, i) => ({
      ...s,
      _environmentId: environmentId,
      deleted: i % 17 === 5,
      ...(i % 13 === 3 && { firstName: null }),
      ...(i % 19 === 7 && { lastName: null }),
      ...(i % 11 === 4 && s.email && { email: s.email.replace(/^./, (c) => c.toUpperCase()).replace("@e", "@E") }),
      // Pairs of subscribers created and updated at the same instant: the _id decides their order.
      ...(i % 2 === 1 && { createdAt: subscribers.at(-1)?.createdAt ?? s.createdAt }),
    }));
    for (const s of theirs) subscribers.push(s);
    const sent = make.notifications(240, undefined, theirs).map((n, i, all) => ({
      ...n,
      _environmentId: environmentId,
      ...(i % 3 === 2 && { createdAt: (all[i - 1] as Notification).createdAt }),
    }));
    notifications.push(...sent);
  }
  // Stored in no particular order, as a table is: no order of the arrays may stand in for the contract's.
  return { subscribers: shuffled(subscribers), notifications: shuffled(notifications) };
}

/** The rows in a fixed pseudo-random order. */
function shuffled<T>(rows: T[]): T[] {
  let state = 7;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const copy = [...rows];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** The data, made once per process: each service gets a copy of its own. */
let cachedData: ModelService["data"] | undefined;

/** The service on a random loopback port. */
export async function startModelService(options: ServiceOptions = {}): Promise<ModelService> {
  const ops: Operations = { ...modelOperations, ...options.operations };
  cachedData ??= serviceData();
  const data = structuredClone(cachedData);
  const now = () => new Date();
  const envOf = (auth: AuthContext) => auth.environmentId;
  const handlers: Partial<Handlers> = {
    searchSubscribers: handler("searchSubscribers", async ({ query }, { auth, errors }) => {
      const answer = ops.search(ops.scope(data.subscribers, envOf(auth), "search"), query);
      if (answer.status !== 200) throw errors.badRequest(answer.message);
      return { status: 200, body: answer.body };
    }),
    patchSubscriber: handler("patchSubscriber", async ({ path, body }, { auth, errors }) => {
      const rows = ops.scope(data.subscribers, envOf(auth), "patch");
      const answer = ops.patch(rows, path.subscriberId, body, now());
      if (answer.status === 422) throw errors.validation(answer.errors ?? {});
      if (answer.status !== 200) throw errors.notFound(answer.message);
      if (answer.changed) ops.save(data.subscribers, answer.body);
      return { status: 200, body: answer.body };
    }),
    listNotifications: handler("listNotifications", async ({ query }, { auth, errors }) => {
      const answer: Answer<unknown> = ops.list(
        ops.scope(data.notifications, envOf(auth), "list"),
        ops.scope(data.subscribers, envOf(auth), "list"),
        query,
        { retentionDays },
      );
      if (answer.status === 402) throw errors.paymentRequired(answer.message);
      if (answer.status !== 200) throw errors.badRequest(answer.message);
      return { status: 200, body: answer.body as never };
    }),
    getNotification: handler("getNotification", async ({ path }, { auth, errors }) => {
      const answer = ops.get(ops.scope(data.notifications, envOf(auth), "get"), path.notificationId, { retentionDays });
      if (answer.status !== 200) throw errors.notFound(answer.message);
      return { status: 200, body: answer.body };
    }),
  };
  const silent = { info() {}, warn() {}, error() {} };
  const routerOptions: AppOptions = {
    handlers,
    logger: silent,
    validateResponses: false,
    // This project's Services is the reference server's (its store); these handlers use none of it.
    services: () => ({}) as never,
    authenticate: ({ apiKey }) => {
      const environmentId = (environments as Record<string, string>)[apiKey];
      if (!environmentId) return undefined;
      return {
        environmentId,
        organizationId: "0000000000000000000000aa",
        name: apiKey,
        retentionDays,
        effectiveRetentionDays: retentionDays,
      };
    },
    // Scoped to `auth.environmentId`, the default.
    idempotency: {
      store: options.idempotency === false ? neverReplays() : new MemoryIdempotencyStore(),
      ...(options.idempotencyScope && { scope: options.idempotencyScope }),
    },
  };
  const app = options.host ? options.host.app(routerOptions) : createApp(routerOptions);
  const server = createHttpServer(app, {}, silent).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.host?.basePath ?? ""}`,
    apiKey: "key-production",
    otherApiKey: "key-development",
    data,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An idempotency store that holds keys but never finds a stored answer: every retry is applied again. */
function neverReplays(): MemoryIdempotencyStore {
  const store = new MemoryIdempotencyStore();
  const session = store.session.bind(store);
  store.session = (scope, key, work) => session(scope, key, (held) => work({ ...held, find: async () => undefined }));
  return store;
}
