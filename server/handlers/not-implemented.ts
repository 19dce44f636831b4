import type { OperationId } from "../../generated/operations.js";
import { ApiError } from "../errors.js";
import type { Handler } from "../handler-types.js";
import { messages } from "../messages.js";

/** The stub `npm run scaffold` writes for an operation that has no handler yet: it answers 501 in the error shape. */
export function notImplemented<K extends OperationId>(operationId: K): Handler<K> {
  return async () => {
    throw new ApiError(501, messages.notImplemented(operationId));
  };
}
