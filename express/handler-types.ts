/**
 * Handler types derived from openapi-typescript's `operations`: a handler gets typed input and must return a body
 * that matches one of the success statuses its operation declares, with no field the contract does not declare.
 * Errors are thrown with the operation's own helpers (`context.errors`, operation-errors.ts).
 *
 * Two interfaces are yours to fill in, by declaration merging (`declare module "@novu-query/express" { ... }`):
 * `AuthContext`, what your `authenticate` hook returns for a valid key, and `Services`, what your `services` hook
 * gives every handler besides it (a database, or the idempotency store's transaction).
 */
import type { IncomingHttpHeaders } from "node:http";
import type { OperationId, operationTable } from "@novu-query/contract/operations";
import type { operations } from "@novu-query/contract/types";
import type { StoredAnswer } from "./idempotency.js";
import type { OperationErrors, SuccessStatus } from "./operation-errors.js";

/** What your `authenticate` hook knows of the caller; handlers get it as `context.auth`. Extend it by merging. */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the app through declaration merging
export interface AuthContext {}

/** What your `services` hook gives every handler besides `auth` and `errors`. Extend it by merging. */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the app through declaration merging
export interface Services {}

type Operation<K extends OperationId> = operations[K];
type Parameters<K extends OperationId> = Operation<K>["parameters"];
type JsonContent<T> = T extends { content: { "application/json": infer Body } } ? Body : never;

/** The query after the binding applied the spec's defaults: defaulted parameters are always present. */
type QueryWithDefaults<K extends OperationId> = NonNullable<Parameters<K>["query"]> &
  Required<Pick<NonNullable<Parameters<K>["query"]>, keyof (typeof operationTable)[K]["queryDefaults"]>>;

export interface HandlerInput<K extends OperationId> {
  path: Parameters<K>["path"] extends object ? Parameters<K>["path"] : Record<string, never>;
  query: QueryWithDefaults<K>;
  /**
   * The request's headers as Node has them (lower-case names), those the operation declares typed as the spec says;
   * without `authorization`, whose key is the caller's secret: what it stands for is `context.auth`.
   */
  headers: Omit<IncomingHttpHeaders, "authorization"> & { authorization?: never } & NonNullable<
      Parameters<K>["header"]
    >;
  body: Operation<K> extends { requestBody: infer Body } ? JsonContent<Body> : undefined;
}

export type HandlerContext<K extends OperationId = OperationId> = Services & {
  /** The caller, as your `authenticate` hook described it. */
  auth: AuthContext;
  /** The error answers this operation declares: `throw errors.notFound(message)`. */
  errors: OperationErrors<K>;
};

export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatus<K>]: {
    status: S;
    body: JsonContent<Operation<K>["responses"][S]>;
    headers?: Record<string, string>;
  };
}[SuccessStatus<K>];

export type Handler<K extends OperationId> = (
  input: HandlerInput<K>,
  context: HandlerContext<K>,
) => Promise<HandlerResult<K>>;

/** The key a request carries and what its answer is kept for: what an `AtOnceHandler` stores with its work. */
export interface IdempotentCall {
  key: string;
  /** Of the request's method, path and body (idempotency.ts `fingerprint`): kept with the answer. */
  fingerprint: string;
  ttlSeconds: number;
}

/**
 * What an `AtOnceHandler` found and did in its one step: another request holds the key (`held`); an answer is stored
 * for it (`stored`, replayed or refused by the skeleton as a session's would be); or it ran and stored its answer
 * (`ran`, with the bytes it stored, for the store's bound).
 */
export type AtOnceResult<K extends OperationId> =
  | { held: true }
  | { held: false; stored: StoredAnswer }
  | { held: false; ran: HandlerResult<K>; storedBytes: number };

/**
 * An operation's work and its stored answer in one step of the store (one statement), for a request with an
 * idempotency key: claims the key and, only when it is free and nothing is stored for it, does the work and keeps its
 * answer with it (`idempotency.atOnce`, router.ts). `undefined`: this request is not one it answers so (a 404 to
 * store, say); it then runs in an idempotency session as any other.
 */
export type AtOnceHandler<K extends OperationId> = (
  input: HandlerInput<K>,
  context: HandlerContext<K>,
  call: IdempotentCall,
) => Promise<AtOnceResult<K> | undefined>;

export type AtOnceHandlers = { [K in OperationId]?: AtOnceHandler<K> };

/** One handler per operation of the contract, no more, no fewer. */
export type Handlers = { [K in OperationId]: Handler<K> };
