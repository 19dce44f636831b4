/**
 * The errors a handler may throw, per operation: `errors.notFound(message)` exists only on operations whose spec
 * declares a 404, `errors.status(s, message)` accepts only declared error statuses. What slips past the types (a
 * hand-made `new ApiError(418, ...)`) is caught at run time by the binding (bind.ts), logged and answered 500.
 */
import { type OperationId, operationTable } from "@novu-query/contract/operations";
import { ApiError, type FieldErrors } from "./errors.js";
import { messages } from "./messages.js";

/** Every status the operation declares in the spec. */
export type DeclaredStatus<K extends OperationId> = (typeof operationTable)[K]["statuses"][number];
/** The declared statuses a handler answers by returning. */
export type SuccessStatus<K extends OperationId> = Extract<DeclaredStatus<K>, 200 | 201 | 202 | 204>;
/** The declared statuses a handler answers by throwing. */
export type ErrorStatus<K extends OperationId> = Exclude<DeclaredStatus<K>, SuccessStatus<K>>;

/** The named helpers and the status each one answers. */
export const namedStatuses = {
  badRequest: 400,
  paymentRequired: 402,
  notFound: 404,
  conflict: 409,
  validation: 422,
} as const;
type Named = typeof namedStatuses;

type MessageHelper = (message: string, headers?: Record<string, string>) => ApiError;
type ValidationHelper = (fields: FieldErrors, message?: string) => ApiError;

export type OperationErrors<K extends OperationId> = {
  readonly [N in keyof Named as Named[N] extends ErrorStatus<K> ? N : never]: N extends "validation"
    ? ValidationHelper
    : MessageHelper;
} & {
  /** Any error status the operation declares, by number; a 422 names its inputs, so it is made by `validation`. */
  status<S extends Exclude<ErrorStatus<K>, 422>>(
    status: S,
    message: string,
    headers?: Record<string, string>,
  ): ApiError;
};

/** The error helpers of one operation; at run time they exist for every status, the types hide the undeclared. */
export function errorsFor<K extends OperationId>(_id: K): OperationErrors<K> {
  const helpers: Record<string, unknown> = {
    status: (status: number, message: string, headers?: Record<string, string>) =>
      new ApiError(status, message, headers),
  };
  for (const [name, status] of Object.entries(namedStatuses)) {
    helpers[name] =
      name === "validation"
        ? (fields: FieldErrors, message: string = messages.validation) => ApiError.validation(fields, message)
        : (message: string, headers?: Record<string, string>) => new ApiError(status, message, headers);
  }
  return helpers as OperationErrors<K>;
}

/**
 * The 501 of a stub that `npm run scaffold` wrote: the one status a handler may answer without its operation
 * declaring it, so that a fresh operation answers something honest until it is implemented (docs/decisions.md D29).
 */
export class NotImplementedError extends ApiError {
  constructor(operationId: OperationId) {
    super(501, messages.notImplemented(operationId));
    this.name = "NotImplementedError";
  }
}

/** True when a handler's answer or error has a status its operation declares (or is a scaffold stub's 501). */
export function isDeclared(id: OperationId, status: number, error?: unknown): boolean {
  if (error instanceof NotImplementedError) return true;
  return (operationTable[id].statuses as readonly number[]).includes(status);
}
