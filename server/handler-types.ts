/**
 * Handler types derived from openapi-typescript's `operations`: a handler gets typed input and must return a body
 * that matches one of the success statuses its operation declares, with no field the contract does not declare.
 * Errors are thrown with the operation's own helpers (`context.errors`, server/operation-errors.ts).
 */
import type { OperationId, operationTable } from "../generated/operations.js";
import type { operations } from "../generated/schema.js";
import type { AuthContext } from "./auth.js";
import type { OperationErrors, SuccessStatus } from "./operation-errors.js";
import type { Store } from "./store/store.js";

type Operation<K extends OperationId> = operations[K];
type Parameters<K extends OperationId> = Operation<K>["parameters"];
type JsonContent<T> = T extends { content: { "application/json": infer Body } } ? Body : never;

/** The query after the binding applied the spec's defaults: defaulted parameters are always present. */
type QueryWithDefaults<K extends OperationId> = NonNullable<Parameters<K>["query"]> &
  Required<Pick<NonNullable<Parameters<K>["query"]>, keyof (typeof operationTable)[K]["queryDefaults"]>>;

export interface HandlerInput<K extends OperationId> {
  path: Parameters<K>["path"] extends object ? Parameters<K>["path"] : Record<string, never>;
  query: QueryWithDefaults<K>;
  headers: NonNullable<Parameters<K>["header"]>;
  body: Operation<K> extends { requestBody: infer Body } ? JsonContent<Body> : undefined;
}

export interface HandlerContext<K extends OperationId = OperationId> {
  auth: AuthContext;
  /**
   * The store, bound to the request's transaction when the operation runs in one (an idempotent PATCH). Reads go
   * to `store.subscribers` / `store.notifications`, which use the read replica when `DATABASE_READ_URL` is set.
   */
  store: Store;
  /** The error answers this operation declares: `throw errors.notFound(message)`. */
  errors: OperationErrors<K>;
}

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

/** One handler per operation of the spec, no more, no fewer. */
export type Handlers = { [K in OperationId]: Handler<K> };
