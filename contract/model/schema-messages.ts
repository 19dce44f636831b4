/**
 * The words a user reads when an input breaks the spec's schema: one table, used by the skeleton and the reference
 * server (express/library-errors.ts), MSW (contract/msw/request-checks.ts) and the zod schemas (scripts/zod-finish.ts),
 * so that a bad time zone reads the same everywhere and nobody reads a regular expression. A pattern's words are the
 * spec's own (`x-pattern-message` beside the pattern); formats, lengths, bounds, enums and types are worded here.
 */

/** A pattern (as the spec writes it) and the words a value that breaks it gets, from the spec. */
export type PatternMessages = ReadonlyMap<string, string>;

/** Every `pattern` of a spec (or any part of it) that has an `x-pattern-message`. */
export function patternMessages(spec: unknown): PatternMessages {
  const found = new Map<string, string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      const { pattern, "x-pattern-message": message } = node as Record<string, unknown>;
      if (typeof pattern === "string" && typeof message === "string") found.set(pattern, message);
      Object.values(node).forEach(walk);
    }
  };
  walk(spec);
  return found;
}

/** What a schema keyword refused, with the keyword's value (ajv's `params`, or read back from its message). */
export type SchemaIssue =
  | { keyword: "pattern"; pattern: string }
  | { keyword: "format"; format: string }
  | { keyword: "minLength" | "maxLength" | "minItems" | "maxItems"; limit: number }
  /** `minLength` and `maxLength` alike (zod's `.length()`, which the build writes as the two). */
  | { keyword: "length"; limit: number }
  | { keyword: "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"; limit: number }
  | { keyword: "enum"; allowed: readonly unknown[] }
  | { keyword: "type"; type: string };

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Each format the spec uses on an input, as a user reads it. */
const formatWords: Record<string, string> = {
  email: "Must be an e-mail address such as maya.patel@example.com",
  uri: "Must be a URL such as https://example.com/hooks/chat",
  "date-time": "Must be a date and time such as 2026-11-26T09:30:00Z",
  uuid: "Must be a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e",
};

const typeWords: Record<string, string> = {
  string: "Must be text",
  integer: "Must be a whole number",
  number: "Must be a number",
  boolean: "Must be true or false",
  object: "Must be an object",
  array: "Must be a list",
  null: "Must be null",
};

/** The words for one issue; undefined when the table has none (the caller keeps the library's). */
export function schemaMessage(issue: SchemaIssue, patterns: PatternMessages): string | undefined {
  switch (issue.keyword) {
    case "pattern":
      return patterns.get(issue.pattern);
    case "format":
      return formatWords[issue.format];
    case "minLength":
      return issue.limit === 1 ? "Must not be empty" : `Must be at least ${plural(issue.limit, "character")}`;
    case "maxLength":
      return `Must be at most ${plural(issue.limit, "character")}`;
    case "length":
      return `Must be exactly ${plural(issue.limit, "character")}`;
    case "minItems":
      return `Must have at least ${plural(issue.limit, "value")}`;
    case "maxItems":
      return `Must have at most ${plural(issue.limit, "value")}`;
    case "minimum":
      return `Must be at least ${issue.limit}`;
    case "maximum":
      return `Must be at most ${issue.limit}`;
    case "exclusiveMinimum":
      return `Must be more than ${issue.limit}`;
    case "exclusiveMaximum":
      return `Must be less than ${issue.limit}`;
    case "enum":
      return `Must be one of: ${issue.allowed.map(String).join(", ")}`;
    case "type":
      return typeWords[issue.type.split(",")[0] ?? ""];
  }
}

/** The keywords whose issue is a number they bound (`limit`), read alike from params and from messages. */
type LimitKeyword = Extract<SchemaIssue, { limit: number }>["keyword"];
const limitKeywords: ReadonlySet<string> = new Set<LimitKeyword>([
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);
const isLimitKeyword = (keyword: string): keyword is Exclude<LimitKeyword, "length"> => limitKeywords.has(keyword);

/** An issue from ajv's keyword and params (MSW's validator); undefined for a keyword the table does not word. */
export function issueFromParams(keyword: string, params: Record<string, unknown>): SchemaIssue | undefined {
  if (isLimitKeyword(keyword)) return typeof params.limit === "number" ? { keyword, limit: params.limit } : undefined;
  switch (keyword) {
    case "pattern":
      return typeof params.pattern === "string" ? { keyword, pattern: params.pattern } : undefined;
    case "format":
      return typeof params.format === "string" ? { keyword, format: params.format } : undefined;
    case "enum":
      return Array.isArray(params.allowedValues) ? { keyword, allowed: params.allowedValues } : undefined;
    case "type":
      return typeof params.type === "string" ? { keyword, type: params.type } : undefined;
    default:
      return undefined;
  }
}

/**
 * An issue read back from ajv's English message, for validators that pass on only the keyword and the message
 * (express-openapi-validator: `errorCode` `pattern.openapi.validation`, message `must match pattern "^...$"`).
 */
export function issueFromMessage(keyword: string, message: string): SchemaIssue | undefined {
  const quoted = /"(.*)"$/.exec(message)?.[1];
  if (isLimitKeyword(keyword)) {
    const limit = Number(/(-?\d+(?:\.\d+)?)(?: \w+)?$/.exec(message)?.[1]);
    return Number.isFinite(limit) ? { keyword, limit } : undefined;
  }
  switch (keyword) {
    case "pattern":
      return quoted === undefined ? undefined : { keyword, pattern: quoted };
    case "format":
      return quoted === undefined ? undefined : { keyword, format: quoted };
    case "enum": {
      const list = /allowed values: (.*)$/.exec(message)?.[1];
      return list === undefined ? undefined : { keyword, allowed: list.split(", ") };
    }
    case "type": {
      const type = /^must be (\w+)/.exec(message)?.[1];
      return type === undefined ? undefined : { keyword, type };
    }
    default:
      return undefined;
  }
}
