/**
 * The classification rules of `npm run diff`: each change the structural diff (api-smart-diff) reports is given to
 * the first rule that matches it, which says what it does to **clients** (a client built against the old contract,
 * talking to a server of the new one) and to **implementations** (a server built for the old contract, checked
 * against the new one). Each rule has a name, a sentence, and a fixture pair in test/diff/fixtures/.
 * A change no rule matches is reported as `unclassified` and counts as breaking for both, so a gap fails safe.
 */

export type Impact = "breaking" | "non-breaking" | "documentation";

export interface Change {
  action: "add" | "remove" | "replace" | "rename";
  /** Where, in the old or new spec, with $refs resolved: ["paths", "/v2/subscribers", "get", "responses", ...]. */
  path: (string | number)[];
  before?: unknown;
  after?: unknown;
}

/** A change with the facts the rules read: which side of the exchange it is on, and what it touches. */
export interface ChangeContext extends Change {
  side: "request" | "response" | "operation" | "document";
  /** The last key of the path, e.g. "maximum", "required", "enum", "description". */
  key: string;
  /** The key before an array index, e.g. "enum" for [..., "enum", 4]. */
  owner: string;
}

export interface Rule {
  id: string;
  text: string;
  /** oasdiff's check of the same meaning, where there is one. */
  oasdiff?: string;
  matches(change: ChangeContext): boolean;
  clients: Impact | ((change: ChangeContext) => Impact);
  implementations: Impact | ((change: ChangeContext) => Impact);
  /** What an implementation must do when the change breaks it (the reviewer's comment says it per change). */
  must?: string | ((change: ChangeContext) => string);
}

const documentationKeys = new Set([
  "description",
  "summary",
  "example",
  "examples",
  "title",
  "externalDocs",
  "x-tagGroups",
  // Hints for mock data (Prism's --dynamic): they change no value a client or a server may send.
  "x-faker",
  // The words a form shows when a value breaks the pattern (the zod schemas' messages).
  "x-pattern-message",
  "tags",
  "deprecated",
]);
const tightenKeys = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"]);
const floorKeys = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"]);
const typeKeys = new Set(["type", "format", "pattern", "const", "$ref", "items"]);

const isNumber = (value: unknown): value is number => typeof value === "number";
const inRequestSchema = (c: ChangeContext) => c.side === "request";
const inResponseSchema = (c: ChangeContext) => c.side === "response";
/** The change is to a property itself: [..., "properties", name]. */
const isProperty = (c: ChangeContext) => c.path.at(-2) === "properties";
const isParameter = (c: ChangeContext) => c.path.length === 5 && c.path[3] === "parameters";
const isResponseStatus = (c: ChangeContext) => c.path.length === 5 && c.path[3] === "responses";
const isMediaType = (c: ChangeContext) => c.path.at(-2) === "content";
const isHeader = (c: ChangeContext) => c.path.at(-2) === "headers";
/** Did a numeric bound move so that fewer values are allowed? */
function tightened(c: ChangeContext): boolean {
  const before = c.before;
  const after = c.after;
  if (c.action === "add") return true;
  if (c.action === "remove") return false;
  if (!isNumber(before) || !isNumber(after)) return true;
  return tightenKeys.has(c.key) ? after < before : after > before;
}

export const rules: Rule[] = [
  {
    id: "documentation",
    text: "Descriptions, summaries, titles, examples, tags, mock-data hints (x-faker), pattern messages (x-pattern-message): documentation only",
    oasdiff: "(not reported)",
    matches: (c) =>
      c.side === "document" ||
      (c.path[0] === "paths" && c.path.some((segment) => documentationKeys.has(String(segment)))),
    clients: "documentation",
    implementations: "documentation",
  },
  {
    id: "operation-removed",
    text: "A path or an operation removed: clients calling it break; a server that still has it still conforms",
    oasdiff: "api-path-removed-without-deprecation / api-removed-without-deprecation",
    matches: (c) => c.action === "remove" && c.path.length <= 3,
    clients: "breaking",
    implementations: "non-breaking",
  },
  {
    id: "operation-added",
    text: "A path or an operation added: old clients are unaffected; an old server lacks it",
    oasdiff: "endpoint-added (info)",
    matches: (c) => c.action === "add" && c.path.length <= 3,
    clients: "non-breaking",
    implementations: "breaking",
    must: "implement the operation (a handler; it answers 501 until then)",
  },
  {
    id: "operation-id-changed",
    text: "An operationId renamed: generated clients and handlers are named by it",
    oasdiff: "api-operation-id-removed",
    matches: (c) => c.key === "operationId",
    clients: "breaking",
    implementations: "breaking",
    must: "rename the handler after the new operationId",
  },
  {
    id: "security-changed",
    text: "Security requirements or schemes changed: requests are authenticated differently",
    oasdiff: "api-security-removed / api-security-added",
    matches: (c) => c.path.includes("security") || c.path.includes("securitySchemes"),
    clients: "breaking",
    implementations: "breaking",
    must: "authenticate requests as the new scheme says",
  },
  {
    id: "parameter-added",
    text: "A parameter added: required breaks clients; optional or required, an old server refuses it as unknown",
    oasdiff: "new-required-request-parameter / new-optional-request-parameter (info)",
    matches: (c) => c.action === "add" && isParameter(c),
    clients: (c) => ((c.after as { required?: boolean })?.required ? "breaking" : "non-breaking"),
    implementations: "breaking",
    must: "accept the parameter and apply its meaning (declare it in contract/model/inputs/; the reference server gives it SQL)",
  },
  {
    id: "parameter-removed",
    text: "A parameter removed: clients that send it are refused as sending an unknown parameter",
    oasdiff: "request-parameter-removed",
    matches: (c) => c.action === "remove" && isParameter(c),
    clients: "breaking",
    implementations: "non-breaking",
  },
  {
    id: "parameter-required-changed",
    text: "A parameter made required breaks clients that omit it; made optional, old servers refuse requests without it",
    oasdiff: "request-parameter-became-required / request-parameter-became-optional (info)",
    matches: (c) => c.path[3] === "parameters" && c.key === "required",
    clients: (c) => (c.after === true ? "breaking" : "non-breaking"),
    implementations: (c) => (c.after === true ? "non-breaking" : "breaking"),
    must: "accept requests without the parameter, with its default",
  },
  {
    id: "default-changed",
    text: "A default changed: requests that omit the value now mean something else",
    oasdiff: "request-parameter-default-value-changed",
    matches: (c) => c.key === "default",
    clients: "breaking",
    implementations: "breaking",
    must: "apply the new default when the parameter is absent",
  },
  {
    id: "request-enum-narrowed",
    text: "A request enum value removed: clients sending it are refused",
    oasdiff: "request-parameter-enum-value-removed / request-property-enum-value-removed",
    matches: (c) => inRequestSchema(c) && c.owner === "enum" && c.action === "remove",
    clients: "breaking",
    implementations: "non-breaking",
  },
  {
    id: "request-enum-widened",
    text: "A request enum value added: old servers refuse it",
    oasdiff: "request-parameter-enum-value-added (info)",
    matches: (c) => inRequestSchema(c) && c.owner === "enum" && c.action === "add",
    clients: "non-breaking",
    implementations: "breaking",
    must: "accept the new value and apply its meaning",
  },
  {
    id: "request-bound-changed",
    text: "A request bound (minimum, maximum, lengths, item counts) tightened breaks clients; loosened, old servers",
    oasdiff: "request-parameter-max-decreased / request-property-max-length-decreased / ...-increased (info)",
    matches: (c) => inRequestSchema(c) && (tightenKeys.has(c.key) || floorKeys.has(c.key)),
    clients: (c) => (tightened(c) ? "breaking" : "non-breaking"),
    implementations: (c) => (tightened(c) ? "non-breaking" : "breaking"),
    must: "accept the wider range",
  },
  {
    id: "request-field-added",
    text: "A request body field added: required breaks clients; either way, an old server refuses it (closed objects)",
    oasdiff: "new-required-request-property / new-optional-request-property (info)",
    matches: (c) => inRequestSchema(c) && isProperty(c) && c.action === "add",
    clients: "non-breaking",
    implementations: "breaking",
    must: "accept the field and apply it",
  },
  {
    id: "request-field-removed",
    text: "A request body field removed: clients sending it are refused (closed objects)",
    oasdiff: "request-property-removed",
    matches: (c) => inRequestSchema(c) && isProperty(c) && c.action === "remove",
    clients: "breaking",
    implementations: "non-breaking",
  },
  {
    id: "request-required-changed",
    text: "A request body field made required breaks clients that omit it; made optional, old servers",
    oasdiff: "request-property-became-required / request-property-became-optional (info)",
    matches: (c) => inRequestSchema(c) && (c.key === "required" || c.owner === "required"),
    clients: (c) => (c.action === "remove" ? "non-breaking" : "breaking"),
    implementations: (c) => (c.action === "remove" ? "breaking" : "non-breaking"),
    must: "accept bodies without the field",
  },
  {
    id: "request-additional-properties",
    text: "additionalProperties closed on a request object breaks clients sending extra fields; opened, old servers",
    oasdiff: "request-property-additional-properties-... (not in oasdiff's list)",
    matches: (c) => inRequestSchema(c) && c.key === "additionalProperties",
    clients: (c) => (c.after === false ? "breaking" : "non-breaking"),
    implementations: (c) => (c.after === false ? "non-breaking" : "breaking"),
    must: "accept the fields it now allows",
  },
  {
    id: "status-changed",
    text: "A response status removed: clients waiting for a success break, servers that send an error break; added: old servers never send it, clients may not handle it",
    oasdiff: "response-success-status-removed / response-non-success-status-removed / response-*-status-added (info)",
    matches: (c) => isResponseStatus(c),
    clients: (c) => (c.action === "remove" && String(c.path[4]).startsWith("2") ? "breaking" : "non-breaking"),
    implementations: (c) => (c.action === "remove" && !String(c.path[4]).startsWith("2") ? "breaking" : "non-breaking"),
    must: "stop answering with the removed status",
  },
  {
    id: "media-type-changed",
    text: "A request or response media type added or removed",
    oasdiff: "response-media-type-removed / request-body-media-type-removed",
    matches: (c) => isMediaType(c),
    clients: (c) =>
      c.action === "add" && c.side === "response" ? "breaking" : c.action === "add" ? "non-breaking" : "breaking",
    implementations: "breaking",
    must: "answer and accept the media types the contract now has",
  },
  {
    id: "header-changed",
    text: "A header added or removed: a new required request header or a removed response header breaks clients",
    oasdiff: "new-required-request-header-property / response-header-removed",
    matches: (c) => isHeader(c),
    clients: (c) =>
      (c.side === "response" && c.action === "remove") || (c.side === "request" && c.action === "add")
        ? "breaking"
        : "non-breaking",
    implementations: (c) => (c.side === "response" && c.action === "add" ? "breaking" : "non-breaking"),
    must: "send the new response header",
  },
  {
    id: "response-field-removed",
    text: "A response field removed: clients reading it break",
    oasdiff: "response-property-removed / response-required-property-removed",
    matches: (c) => inResponseSchema(c) && isProperty(c) && c.action === "remove",
    clients: "breaking",
    implementations: "non-breaking",
  },
  {
    id: "response-field-added",
    text: "A response field added: old clients ignore it; an old server does not send it (breaking when required)",
    oasdiff: "response-optional-property-added / response-required-property-added (info)",
    matches: (c) => inResponseSchema(c) && isProperty(c) && c.action === "add",
    clients: "non-breaking",
    implementations: "breaking",
    must: "send the field (always, when it is required)",
  },
  {
    id: "response-required-changed",
    text: "A response field made optional breaks clients that rely on it; made required, old servers that omit it",
    oasdiff: "response-property-became-optional / response-property-became-required (info)",
    matches: (c) => inResponseSchema(c) && (c.key === "required" || c.owner === "required"),
    clients: (c) => (c.action === "remove" ? "breaking" : "non-breaking"),
    implementations: (c) => (c.action === "remove" ? "non-breaking" : "breaking"),
    must: "always send the field",
  },
  {
    id: "response-enum-widened",
    text: "A response enum value added: clients switching over the values meet one they do not know",
    oasdiff: "response-property-enum-value-added",
    matches: (c) => inResponseSchema(c) && c.owner === "enum" && c.action === "add",
    clients: "breaking",
    implementations: "non-breaking",
  },
  {
    id: "response-enum-narrowed",
    text: "A response enum value removed: old servers may still send it",
    oasdiff: "response-property-enum-value-removed (info)",
    matches: (c) => inResponseSchema(c) && c.owner === "enum" && c.action === "remove",
    clients: "non-breaking",
    implementations: "breaking",
    must: "never send the removed value",
  },
  {
    id: "response-const-added",
    text: "A response value pinned to one constant (an error's statusCode to its status): clients meet only it; old servers may send others",
    oasdiff: "response-property-enum-value-removed (info), as an enum narrowed to one value",
    matches: (c) => inResponseSchema(c) && c.key === "const" && c.action === "add",
    clients: "non-breaking",
    implementations: "breaking",
    must: "send exactly that value",
  },
  {
    id: "type-changed",
    text: "A type, format, pattern, const or item schema changed (a nullable added to a response is breaking for clients)",
    oasdiff: "request-parameter-type-changed / response-property-type-changed / ...-pattern-changed",
    matches: (c) => typeKeys.has(c.key) || typeKeys.has(c.owner),
    clients: "breaking",
    implementations: "breaking",
    must: "accept and send values of the new type, format or pattern",
  },
  {
    id: "response-bound-changed",
    text: "A response bound changed: loosened, clients may meet values they did not expect; tightened, old servers may exceed it",
    oasdiff: "response-property-max-increased / ...-min-decreased",
    matches: (c) => inResponseSchema(c) && (tightenKeys.has(c.key) || floorKeys.has(c.key)),
    clients: (c) => (tightened(c) ? "non-breaking" : "breaking"),
    implementations: (c) => (tightened(c) ? "breaking" : "non-breaking"),
    must: "keep values within the new bound",
  },
];

/** A change as the report shows it: classified, and placed in the spec. */
export type ClassifiedChange = ReturnType<typeof classify> & {
  /** JSON pointer of what changed, e.g. /paths/~1v2~1subscribers/get/parameters/2/schema/maximum. */
  pointer: string;
  /** "GET /v2/subscribers", or the document part. */
  where: string;
  /** The parameter a change under `parameters/<index>` is about, by name (the index says nothing to a reader). */
  parameter?: { name: string; in: string };
};

/** Classifies one change: its side, and the first rule that matches (or `unclassified`). */
export function classify(
  change: Change,
): ChangeContext & { rule: string; clients: Impact; implementations: Impact; must?: string } {
  const path = change.path;
  const side: ChangeContext["side"] =
    path[0] === "security" || path.includes("securitySchemes")
      ? "operation"
      : path[0] !== "paths"
        ? "document"
        : path[3] === "responses"
          ? "response"
          : path[3] === "parameters" || path[3] === "requestBody"
            ? "request"
            : "operation";
  const last = path.at(-1);
  const key = String(last);
  const owner = typeof last === "number" || /^\d+$/.test(key) ? String(path.at(-2)) : key;
  const context: ChangeContext = { ...change, side, key, owner };
  for (const rule of rules) {
    if (!rule.matches(context)) continue;
    const impact = (value: Rule["clients"]) => (typeof value === "function" ? value(context) : value);
    const implementations = impact(rule.implementations);
    const must = typeof rule.must === "function" ? rule.must(context) : rule.must;
    return {
      ...context,
      rule: rule.id,
      clients: impact(rule.clients),
      implementations,
      ...(implementations === "breaking" && must !== undefined && { must }),
    };
  }
  return {
    ...context,
    rule: "unclassified",
    clients: "breaking",
    implementations: "breaking",
    must: "read the change: no rule classifies it",
  };
}
