/**
 * What the model answers: a success with its body, or a refusal that names the spec's error example it is an instance
 * of (its status and reason phrase), with this request's message and, for a 422, the invalid inputs.
 */
import type { ConstraintValidation } from "../../generated/schema.js";

/** The invalid inputs of a 422 (its `errors`), keyed like `body.timezone` or `query.limit`. */
export type FieldErrors = Record<string, ConstraintValidation>;

export interface Refusal {
  status: 400 | 402 | 404 | 422;
  /** The spec's named example this refusal is an instance of, e.g. "BadRequestBothCursors". */
  example: string;
  message: string;
  errors?: FieldErrors;
}

export type Answer<Body> = { status: 200; body: Body } | Refusal;

export function ok<Body>(body: Body): { status: 200; body: Body } {
  return { status: 200, body };
}

/** Whether an answer is a refusal (narrows the union). */
export function isRefusal<Body>(answer: Answer<Body>): answer is Refusal {
  return answer.status !== 200;
}
