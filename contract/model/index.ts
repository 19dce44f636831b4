/**
 * The contract's semantics as code that runs: pure functions over arrays of one environment's rows, no I/O. The
 * memory API and the MSW stateful handlers answer from it, the conformance suite's oracle compares implementations
 * with it, the reference server's handlers refuse with it and its store is tested against it, and a backend team may
 * build on it. Every wire message of an error body is in `messages`.
 *
 *   import { searchSubscribers, inEnvironment } from "@novu-query/contract/model";
 *   const answer = searchSubscribers(inEnvironment(rows, environmentId), { email: "@example.com", limit: 20 });
 *   if (answer.status === 200) render(answer.body.data);
 */
export { type Answer, type FieldErrors, isRefusal, ok, type Refusal } from "./answers.js";
export { type AuthorizationRefusal, keyNotFound, readAuthorization } from "./authentication.js";
export { canonicalJson } from "./canonical-json.js";
export { contentTypeProblem } from "./content-type.js";
export { canonicalDateTime, dateTimeForms, dateTimeMilliseconds, storableInstant } from "./date-time.js";
export { inEnvironment } from "./environments.js";
export {
  decideIdempotently,
  type IdempotencyDecision,
  idempotencyFingerprint,
  idempotencyKeyProblem,
  keepsAnswer,
  reusedKeyField,
} from "./idempotency.js";
export * from "./inputs/index.js";
export { containsIgnoringCase, searchedName, termVariants } from "./matching.js";
export { idempotencyDocsLink, messages } from "./messages.js";
export {
  compareNewestFirst,
  getNotification,
  listedNotifications,
  listNotifications,
  matchesNotificationFilters,
  type NotificationListQuery,
  readable,
  resolveSubscriberFilters,
} from "./notifications.js";
export { isBracketedKey, unknownQueryKey } from "./query-keys.js";
export { Random } from "./random.js";
export {
  issueFromMessage,
  issueFromParams,
  type PatternMessages,
  patternMessages,
  type SchemaIssue,
  schemaMessage,
} from "./schema-messages.js";
export {
  type CursorPosition,
  comparePositions,
  cursorPosition,
  positionOf,
  readSubscriberCursor,
  type SubscriberCursor,
  subscriberCursorOf,
  subscriberCursorProblem,
} from "./subscriber-cursor.js";
export {
  compareSubscribers,
  defaultTotalCountCap,
  matchesSearch,
  patchChanges,
  patchRefusal,
  patchSubscriber,
  type SearchOptions,
  type SubscriberSearchQuery,
  searchRefusal,
  searchSubscribers,
} from "./subscribers.js";
export { isTimeZone } from "./time-zone.js";
export { type ListOptions, listWindow, retentionStart } from "./window.js";
