import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { createHttpServer, type Handlers } from "@novu-query/express";
import pino from "pino";
import { createServerApp } from "../../server/app.js";
import { type Config, loadConfig } from "../../server/config.js";
import { type DemoEnvironment, type DemoOptions, defaultDemoOptions } from "../../server/demo/generate.js";
import { loadDemoData } from "../../server/demo/load.js";
import { atOnceHandlers, handlers as realHandlers } from "../../server/handlers/index.js";
import { openStore, type Store } from "../../server/store/store.js";
import { createPostgresDatabase, pgliteTemplate } from "./databases.js";

export interface TestServer {
  baseUrl: string;
  store: Store;
  databaseUrl: string | undefined;
  demo: DemoEnvironment[];
  /** Production first, Development second. */
  production: DemoEnvironment;
  development: DemoEnvironment;
  /** Every line the server logged. */
  logs: string[];
  /**
   * Runs `work`; when it fails, adds to its error what the server logged at level error meanwhile (a 500's cause and
   * stack), so that a failure seen once in CI says why.
   */
  withErrorsLogged<T>(work: () => Promise<T>): Promise<T>;
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  driver: "pglite" | "postgres";
  /** Told of every statement the store runs (Kysely's log hook): its SQL text and parameters. */
  onStatement?: (sql: string, parameters: readonly unknown[]) => void;
  demo?: Partial<DemoOptions>;
  config?: Partial<Config>;
  /** Handlers of the test's own; the server's PATCH at once (D68) is then off, so that every PATCH runs them. */
  handlers?: Handlers;
  /** The server's own handlers with its PATCH at once switched off: every PATCH with a key runs in a session. */
  withoutAtOnce?: boolean;
}

/** Small demo data by default: enough rows for ties, filters and several pages, quick to load. */
export const testDemo: DemoOptions = { ...defaultDemoOptions, subscribers: 150, notifications: 400 };

/** The real app (same code as `npm start`) on a random loopback port, over a fresh database with demo data. */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const database = options.driver === "postgres" ? await createPostgresDatabase({ migrated: true }) : undefined;
  // Tests change keys and retention and expect the next request to see it: no key cache unless a test asks.
  const config = { ...loadConfig({}), validateResponses: true, apiKeyCacheSeconds: 0, ...options.config };
  const opened = await openStore({
    databaseUrl: database?.url,
    pgliteTemplate,
    totalCountCap: config.totalCountCap,
    poolSize: 20,
    statementTimeoutMs: config.statementTimeoutMs,
    ...(options.onStatement && {
      log: (event) => options.onStatement?.(event.query.sql, event.query.parameters),
    }),
  });
  const demo = await loadDemoData(opened.store, { ...testDemo, ...options.demo });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: "info" }, sink);
  const atOnce = options.handlers || options.withoutAtOnce ? undefined : atOnceHandlers;
  const app = createServerApp({
    store: opened.store,
    handlers: options.handlers ?? realHandlers,
    atOnce,
    logger,
    config,
  });
  const server = createHttpServer(app, config, logger).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [production, development] = demo as [DemoEnvironment, DemoEnvironment];
  return {
    baseUrl,
    store: opened.store,
    databaseUrl: database?.url,
    demo,
    production,
    development,
    logs,
    async withErrorsLogged(work) {
      const from = logs.length;
      try {
        return await work();
      } catch (error) {
        const logged = logs.slice(from).filter((line) => /"level":(5|6)\d\b/.test(line));
        if (logged.length > 0 && error instanceof Error) {
          error.message += `\nthe server logged meanwhile:\n${logged.join("")}`;
        }
        throw error;
      }
    },
    request(path, init = {}) {
      const { key = production.apiKey, headers, ...rest } = init;
      const allHeaders = new Headers(headers);
      if (key !== null && !allHeaders.has("authorization")) allHeaders.set("authorization", `ApiKey ${key}`);
      return fetch(baseUrl + path, { ...rest, headers: allHeaders });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await opened.close();
      await database?.drop();
    },
  };
}

/** A PATCH with a JSON body. */
export function jsonPatch(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method: "PATCH", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } };
}

/** The response body, read as the generated type the contract promises for it. */
export function json<T>(response: Response): Promise<T> {
  return response.json() as Promise<T>;
}
