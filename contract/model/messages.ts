/**
 * Every message an implementation puts in an error body, in one place: the model answers with them, the skeleton and
 * the reference server send them, the mocks show them. Those clients (and Novu's own tests) match on are in Novu's
 * exact words, each naming the Novu source it follows; `test/contract/messages.test.ts` checks that every message of
 * the spec's named examples is one of these, so the mock never shows a text the server does not send.
 */
export const messages = {
  /**
   * A time zone of the right form that the server does not know (`Mars/Olympus_Mons`): the same words as the spec's
   * `x-pattern-message` for one of the wrong form, so that a form shows one message (test/contract/schema-messages).
   */
  timeZoneUnknown: "Must be an IANA time zone such as Europe/Paris or UTC",
  // Authentication (Novu: apps/api auth guards and ApiKeyStrategy).
  missingAuthorization: "Missing authorization header",
  invalidScheme: (scheme: string) => `Invalid authentication scheme: "${scheme}"`,
  emptyKey: "Unauthorized",
  keyNotFound: "API Key not found",

  // Records (Novu: subscribers-v2 and notifications use cases).
  subscriberNotFound: (subscriberId: string) => `Subscriber ${subscriberId} was not found`,
  notificationNotFound: "Notification not found",

  /** Novu: libs/dal subscriber repository and every v2 list use case. */
  bothCursors: 'Cannot specify both "before" and "after" cursors at the same time.',
  /** Novu: apps/api notifications get-activity-feed use case. */
  dateRangeReversed: "Invalid date range: start date (after) must be earlier than end date (before)",
  /** Novu: the same use case, with the first day the plan's retention allows. */
  retentionExceeded: (earliestDay: string) =>
    `Requested date range exceeds your plan's retention period. The earliest accessible date for your plan is ${earliestDay}.`,

  // Idempotency (Novu: apps/api/src/app/shared/framework/idempotency.interceptor.ts).
  idempotencyKeyTooLong: (key: string) =>
    `idempotencyKey "${key}" has exceeded the maximum allowed length of 255 characters`,
  /** Ours: Novu's interceptor skips an empty key; the spec requires at least one character. */
  idempotencyKeyEmpty: "idempotencyKey must not be empty",
  /** Ours: a key is text; bytes that are not UTF-8 could be neither stored as sent nor echoed. */
  idempotencyKeyNotAscii: "idempotencyKey must be printable ASCII (space to ~)",
  idempotencyInFlight: (key: string) =>
    `Request with key "${key}" is currently being processed. Please retry after 1 second`,
  idempotencyKeyReused: (key: string) => `Request with key "${key}" is being reused for a different body`,

  /** Novu: apps/api rate-limiting throttler guard. */
  rateLimited: "API rate limit exceeded",
  validation: "Validation Error",
  /** Novu: the errorId answer of its exception filter. */
  internal: "Internal server error, contact support and provide them with the errorId",

  // Requests refused before they reach an operation.
  routeNotFound: (method: string, path: string) => `Cannot ${method} ${path}`,
  methodNotAllowed: (method: string, path: string) => `${method} is not allowed on ${path}`,
  notJson: "Content-Type must be application/json",
  notUtf8: (charset: string) => `Content-Type charset must be utf-8, not ${charset}`,
  oneHost: "A request must have exactly one Host header",
  malformedJson: "Malformed JSON in request body",
  bracketedParameter: (name: string, ...values: string[]) =>
    `takes no brackets: send ${values.map((value) => `${name}=${encodeURIComponent(value)}`).join("&")} (a list is the parameter repeated)`,
  undecodableBody: (encoding: string) => `The request body is not valid ${encoding} (Content-Encoding)`,
  bodyAborted: "The request was aborted before its body was received",
  bodyTooLarge: (limitKb: number) => `Request body is larger than the limit of ${limitKb}kb`,
  urlTooLong: (maxLength: number) => `Request URL is longer than the limit of ${maxLength} characters`,
  headersTooLarge: (maxBytes: number) => `Request headers are larger than the limit of ${maxBytes} bytes`,
  receiveTimeout: (ms: number) => `The request was not received within ${ms} ms`,
  answerTimeout: (ms: number) => `The request took longer than ${ms} ms; please retry`,
  answerTimeoutWriteUnderWay: (ms: number) =>
    `The request took longer than ${ms} ms and is still being processed: it may yet be applied. Retry with the same idempotency-key to get its answer`,

  // Overload (the skeleton's admission.ts, the server's STATEMENT_TIMEOUT_MS).
  overloaded: "The server is busy; please retry after the time in Retry-After",
  keyLookupTimeout: (ms: number) =>
    `The API key could not be looked up within ${ms} ms; nothing was done. Please retry after the time in Retry-After`,
  statementTimeout: (ms: number) =>
    `The database did not answer within ${ms} ms and the query was cancelled; nothing was changed. Please retry after the time in Retry-After`,
  /** The database could not be reached or ended the connection (a restart, an outage, an administrator). */
  databaseUnavailable:
    "The database is unavailable; the request was not completed. Please retry after the time in Retry-After (a write with the same idempotency-key, so that it is applied once)",
  /** The disk under the database is full: reads are answered, writes are refused until space is freed. */
  storageFull:
    "The server's storage is full and the change was not saved. Please retry after the time in Retry-After; it succeeds once space is freed",
  malformedHttp: "Malformed HTTP request",
  expectationFailed: (expect: string) => `Expect: ${expect} cannot be met; only 100-continue can`,
  missingHost: "An HTTP/1.1 request must have a Host header",
  notImplemented: (operationId: string) => `The operation ${operationId} is not implemented yet`,
} as const;

/** Where Novu's idempotency answers point (its `Link` header). */
export const idempotencyDocsLink = "https://docs.novu.co/additional-resources/idempotency";
