/**
 * The validated Express skeleton of the notification query API: mount `createRouter(...)` in your app (or start from
 * `createApp(...)`), write one handler per operation with `handler(...)`, and the request pipeline answers everything
 * else as Novu does. `npx novu-query-express init` writes the handlers' stubs and an app entry.
 */

export { type OperationId, operationIds, operationTable } from "@novu-query/contract/operations";
export type * from "@novu-query/contract/types";
export type { Cost, CostOf } from "./admission.js";
export { type AppOptions, createApp } from "./app.js";
export {
  type ApiKeyCredentials,
  type Authenticate,
  type Caller,
  hashApiKey,
  type UnknownKeyGuard,
} from "./authenticate.js";
export { handler, type UndeclaredFields } from "./define-handler.js";
export { errorHandler, methodNotAllowed, notFound } from "./error-handler.js";
export { ApiError, type ErrorBody, type FieldErrors, ValidationError } from "./errors.js";
export type {
  AtOnceHandler,
  AtOnceHandlers,
  AtOnceResult,
  AuthContext,
  Handler,
  HandlerContext,
  HandlerInput,
  HandlerResult,
  Handlers,
  IdempotentCall,
  Services,
} from "./handler-types.js";
export { createHttpServer, type HttpLimits, requireHost, urlLengthLimit } from "./http-server.js";
export {
  type IdempotencySession,
  type IdempotencyStore,
  type IdempotentRequest,
  type Outcome,
  runIdempotently,
  type StoredAnswer,
} from "./idempotency.js";
export type { Logger } from "./logger.js";
export { MemoryIdempotencyStore } from "./memory-idempotency.js";
export { MemoryRateLimitStore } from "./memory-rate-limit.js";
export { idempotencyDocsLink, messages } from "./messages.js";
export {
  type DeclaredStatus,
  type ErrorStatus,
  NotImplementedError,
  type OperationErrors,
  type SuccessStatus,
} from "./operation-errors.js";
export type { Decision, RateLimitStore, RateLimits, Take } from "./rate-limit.js";
export { redactUrl } from "./redact.js";
export { type ContractRouter, createRouter, type RouterOptions } from "./router.js";
export { serialized } from "./serialized.js";
