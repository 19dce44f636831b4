/**
 * The validated Express skeleton of the notification query API: mount `createRouter(...)` in your app (or start from
 * `createApp(...)`), write one handler per operation with `handler(...)`, and the request pipeline answers everything
 * else as Novu does. `npx novu-query-express init` writes the handlers' stubs and an app entry.
 */

export { type OperationId, operationIds, operationTable } from "@novu-query/contract/operations";
export type * from "@novu-query/contract/types";
export { Admission, type Cost, type CostOf, Limiter, type LimiterOptions, overloaded } from "./admission.js";
export { type AppOptions, createApp } from "./app.js";
export {
  type ApiKeyCredentials,
  type Authenticate,
  type Caller,
  hashApiKey,
  type UnknownKeyGuard,
} from "./authenticate.js";
export { UndeclaredStatusError } from "./bind.js";
export { isContractRequest } from "./contract-routes.js";
export { handler, type UndeclaredFields } from "./define-handler.js";
export { errorHandler, methodNotAllowed, notFound } from "./error-handler.js";
export {
  ApiError,
  type ErrorBody,
  errorBody,
  type FieldErrors,
  reasonPhrase,
  transportErrorBody,
  ValidationError,
} from "./errors.js";
export type {
  AuthContext,
  Handler,
  HandlerContext,
  HandlerInput,
  HandlerResult,
  Handlers,
  Services,
} from "./handler-types.js";
export { answerTimeout, createHttpServer, type HttpLimits, requireHost, urlLengthLimit } from "./http-server.js";
export {
  type IdempotencySession,
  type IdempotencyStore,
  type IdempotentRequest,
  type Outcome,
  runIdempotently,
  type StoredAnswer,
} from "./idempotency.js";
export { type Logger, stderrLogger } from "./logger.js";
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
export {
  type Decision,
  decide,
  policyHeader,
  type RateLimitStore,
  type RateLimits,
  type Take,
  UnknownKeyLimiter,
} from "./rate-limit.js";
export { isSecretParameter, redactUrl } from "./redact.js";
export { maxBodyDepth, unstorableText } from "./request-rules.js";
export { type ContractRouter, createRouter, type RouterOptions } from "./router.js";
