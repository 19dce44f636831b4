/**
 * The errors of the contract's operations, typed per operation: what the page iterators, `dataOrThrow` and the
 * `/react-query` options throw. Three kinds, told apart by `kind`:
 *
 * - `"contract"`: an error answer the operation declares, with its body as the contract types it. `statusCode`
 *   narrows it: `error.statusCode === 422` gives `error.body.errors`.
 * - `"unexpected"`: an answer that is not the contract's (a proxy's HTML 502, a status the operation does not declare,
 *   a body that is not the error shape); `body` is its text.
 * - `"network"`: no answer could be read (offline, DNS, CORS, a connection reset).
 *
 * Every kind is an `ApiRequestError`, with the answer's `headers`, `requestId` (`X-Request-Id`), `retryAfter` (seconds,
 * from `Retry-After`) and `rateLimit` (`RateLimit-*`).
 */
import { type OperationId, operationStatuses, type ValidationKeys } from "../generated/operations.js";
import type { operations } from "../generated/schema.js";

type Responses<Op extends OperationId> = operations[Op]["responses"];
type JsonOf<Response> = Response extends { content: { "application/json": infer Body } } ? Body : never;

/** The body an operation answers with when it succeeds. */
export type SuccessBodyOf<Op extends OperationId> = JsonOf<Responses<Op>[200 & keyof Responses<Op>]>;

/**
 * The error bodies an operation declares, one per status, each with its `statusCode` as a literal; for a union of
 * operations (`OperationId`, the default of `OperationError`), every body any of them declares.
 */
export type ErrorBodyOf<Op extends OperationId> = Op extends OperationId
  ? {
      [S in keyof Responses<Op>]: S extends 200 ? never : KeyedErrors<JsonOf<Responses<Op>[S]>, Op>;
    }[keyof Responses<Op>]
  : never;

/**
 * A 422 body whose `errors` names the operation's inputs: `error.body.errors["body.email"]` completes and checks the
 * key (`ValidationKeys` in the operation table, generated from the spec). Any other key is still read as an issue,
 * since an unknown field is named too (`body.fristName`).
 */
type KeyedErrors<Body, Op extends OperationId> = Body extends { statusCode: 422; errors: Record<string, infer Issue> }
  ? Omit<Body, "errors"> & { errors: { [Key in ValidationKeys[Op]]?: Issue } & Record<string, Issue | undefined> }
  : Body;

/** What every contract error body has. */
export interface ContractErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

/** The `RateLimit-*` headers of an answer (sent when the server limits requests). */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Seconds until the budget is whole again. */
  reset: number;
  policy: string | undefined;
}

/** Seconds to wait, from a `Retry-After` of seconds or of an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Every error an operation's call can end in. */
export abstract class ApiRequestError extends Error {
  abstract readonly kind: "contract" | "unexpected" | "network";
  /** The HTTP status; undefined when no answer came. */
  abstract readonly status: number | undefined;
  /** The answer's headers (empty when no answer came). */
  readonly headers: Headers;
  /** The operation that was called, when known. */
  readonly operationId: OperationId | undefined;

  protected constructor(message: string, headers: Headers, operationId: OperationId | undefined, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.headers = headers;
    this.operationId = operationId;
  }

  /** The answer's `X-Request-Id`: quote it when reporting a problem. */
  get requestId(): string | undefined {
    return this.headers.get("x-request-id") ?? undefined;
  }

  /** Seconds the server asks to wait before retrying (`Retry-After`, sent with 429 and 503). */
  get retryAfter(): number | undefined {
    return retryAfterSeconds(this.headers);
  }

  /** The answer's `RateLimit-*` headers, when it has them. */
  get rateLimit(): RateLimit | undefined {
    const number = (name: string) => {
      const value = this.headers.get(name);
      return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
    };
    const [limit, remaining, reset] = [
      number("ratelimit-limit"),
      number("ratelimit-remaining"),
      number("ratelimit-reset"),
    ];
    if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
    return { limit, remaining, reset, policy: this.headers.get("ratelimit-policy") ?? undefined };
  }
}

/** An error answer the operation declares; `statusCode` (the body's, and the answer's status) narrows `body`. */
export class ContractError<Body extends ContractErrorBody = ContractErrorBody> extends ApiRequestError {
  readonly kind = "contract";
  readonly status: Body["statusCode"];
  readonly statusCode: Body["statusCode"];
  readonly body: Body;

  constructor(body: Body, headers: Headers, operationId?: OperationId) {
    super(`${body.statusCode} ${body.error}: ${body.message}`, headers, operationId);
    this.status = body.statusCode;
    this.statusCode = body.statusCode;
    this.body = body;
  }
}

/** Where a success answer differs from the contract (`createClient({ validateAnswers })`), and how. */
export interface AnswerMismatch {
  /** The field, as a path into the body: `data[0].createdAt`; empty for the body itself. */
  readonly path: string;
  readonly message: string;
}

/**
 * An answer that is not the contract's: a gateway's page, an undeclared status, a body of another shape; with
 * `validateAnswers`, also a success answer whose body the contract's schema refuses (`mismatches` names each field).
 */
export class UnexpectedAnswerError extends ApiRequestError {
  readonly kind = "unexpected";
  readonly status: number;
  /** Only contract errors have one; here for narrowing on `error.statusCode`. */
  readonly statusCode?: undefined;
  /** The answer's body as text (at most 2,000 characters). */
  readonly body: string;
  /** The fields of a success answer that break the contract (empty for any other unexpected answer). */
  readonly mismatches: readonly AnswerMismatch[];

  constructor(
    status: number,
    body: string,
    headers: Headers,
    operationId?: OperationId,
    mismatches: readonly AnswerMismatch[] = [],
  ) {
    const type = headers.get("content-type") ?? "no content type";
    const [first] = mismatches;
    const detail = first
      ? `: ${first.path || "the body"} ${first.message}${mismatches.length > 1 ? ` (and ${mismatches.length - 1} more)` : ""}`
      : ` (${type})`;
    super(`HTTP ${status}: an answer that is not the contract's${detail}`, headers, operationId);
    this.status = status;
    this.body = body.slice(0, 2000);
    this.mismatches = mismatches;
  }
}

/** No answer could be read: the network failed, the browser refused (CORS), or a success's body was unreadable. */
export class NetworkError extends ApiRequestError {
  readonly kind = "network";
  readonly status: undefined = undefined;
  /** Only contract errors have one; here for narrowing on `error.statusCode`. */
  readonly statusCode?: undefined;

  constructor(cause: unknown, operationId?: OperationId) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`The request failed before an answer could be read: ${reason}`, new Headers(), operationId, cause);
  }
}

type ContractErrors<Body> = Body extends ContractErrorBody ? ContractError<Body> : never;

/**
 * Every error a call of this operation can end in: narrow on `kind`, or on `statusCode` for the contract's. Without
 * an argument, every error of every operation: what a shared error banner takes, so that each operation's error fits.
 */
export type OperationError<Op extends OperationId = OperationId> =
  | ContractErrors<ErrorBodyOf<Op>>
  | UnexpectedAnswerError
  | NetworkError;

/** openapi-fetch's answer: `data` on success, else `error` (the parsed JSON body, or its text). */
export interface FetchAnswer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

function isContractBody(operationId: OperationId, status: number, body: unknown): body is ContractErrorBody {
  if (!(operationStatuses[operationId] as readonly number[]).includes(status)) return false;
  if (typeof body !== "object" || body === null) return false;
  const { statusCode, error, message, errors } = body as Record<string, unknown>;
  if (statusCode !== status || typeof error !== "string" || typeof message !== "string") return false;
  return status !== 422 || (typeof errors === "object" && errors !== null);
}

/** The typed error of an answer that did not succeed. */
export function errorOf<Op extends OperationId>(operationId: Op, answer: FetchAnswer): OperationError<Op> {
  const { error, response } = answer;
  const json = /\bjson\b/i.test(response.headers.get("content-type") ?? "");
  if (json && isContractBody(operationId, response.status, error)) {
    return new ContractError(error, response.headers, operationId) as OperationError<Op>;
  }
  const text = typeof error === "string" ? error : error === undefined ? "" : JSON.stringify(error);
  return new UnexpectedAnswerError(response.status, text, response.headers, operationId);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * The data of a call of the typed client, or its typed error thrown:
 *
 *   const subscriber = await dataOrThrow("patchSubscriber", api.PATCH("/v2/subscribers/{subscriberId}", { ... }));
 *
 * A cancelled request (its `signal` aborted) rejects with the abort as it is.
 */
export async function dataOrThrow<Op extends OperationId>(
  operationId: Op,
  call: Promise<FetchAnswer>,
): Promise<SuccessBodyOf<Op>> {
  let answer: FetchAnswer;
  try {
    answer = await call;
  } catch (cause) {
    // An abort is the caller's own; a refused success answer (validateAnswers) is already the typed error.
    if (isAbort(cause) || cause instanceof UnexpectedAnswerError) throw cause;
    throw new NetworkError(cause, operationId);
  }
  if (answer.response.ok && answer.data !== undefined) return answer.data as SuccessBodyOf<Op>;
  throw errorOf(operationId, answer);
}
