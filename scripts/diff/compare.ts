/**
 * The structural diff of two bundled specs (api-smart-diff, which resolves every $ref so that a change to a shared
 * schema shows at each request and response that uses it), classified by our rules (rules.ts).
 */

import { pointerOf, valueAt } from "@novu-query/contract/json-pointer";
import { merge } from "allof-merge";
import { apiCompare } from "api-smart-diff";
import { changedValue, summarizeByOperation } from "./describe.js";
import { type Change, type ClassifiedChange, classify, type Impact } from "./rules.js";

type Spec = Record<string, unknown>;

/** Components appear resolved under paths; only the security schemes and the document's own parts are kept. */
function relevant(path: (string | number)[]): boolean {
  if (path[0] !== "components") return true;
  return path[1] === "securitySchemes";
}

const inlined = /^#\/components\/(parameters|responses|requestBodies|headers|examples)\//;
/** A request or response body's schema that is only a reference to a shared schema. */
const isBodySchemaRef = (key: string, node: Spec) =>
  key === "schema" && typeof node.$ref === "string" && node.$ref.startsWith("#/components/schemas/");

/**
 * The spec with every $ref to a shared parameter, response, request body, header or example replaced by its target
 * under paths (api-smart-diff follows schema $refs itself, not these), so each change shows at each operation. A
 * body's schema that is a bare reference is replaced too, so that it compares with a merged `allOf` of the same.
 */
function inlineShared(spec: Spec): Spec {
  const target = (ref: string): unknown => valueAt(spec, ref);
  const walk = (node: unknown, key = ""): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (!node || typeof node !== "object") return node;
    const ref = (node as Spec).$ref;
    if (typeof ref === "string" && (inlined.test(ref) || isBodySchemaRef(key, node as Spec))) return walk(target(ref));
    return Object.fromEntries(Object.entries(node).map(([name, value]) => [name, walk(value, name)]));
  };
  return { ...spec, paths: walk(spec.paths) };
}

/**
 * The spec with every `allOf` merged into one schema (allof-merge, api-smart-diff's own companion), so that narrowing a
 * shared schema in place (`allOf: [ErrorDto, { statusCode: { const: 404 } }]`) shows as the constraint it adds, not
 * as the whole schema removed and another added.
 */
function mergeAllOf(spec: Spec): Spec {
  return merge(spec, { source: spec, mergeRefSibling: true }) as Spec;
}

export function compareSpecs(before: Spec, after: Spec): ClassifiedChange[] {
  const [old, current] = [inlineShared(mergeAllOf(before)), inlineShared(mergeAllOf(after))];
  const { diffs } = apiCompare(old, current) as {
    diffs: (Change & { path: (string | number)[] })[];
  };
  // api-smart-diff matches parameters by name and place; its path's index is the parameter's in the old spec, or, for
  // one added, a position past the old list. The parameter a change concerns is read from the change itself when it
  // is the whole parameter, and from the old spec when it is inside one.
  const parameterAt = (diff: Change) => {
    if (diff.path[3] !== "parameters" || diff.path[4] === undefined) return undefined;
    const whole = diff.path.length === 5;
    const found = (
      whole && diff.action === "add"
        ? diff.after
        : whole && diff.action === "remove"
          ? diff.before
          : valueAt(old, pointerOf(diff.path.slice(0, 5)))
    ) as { name?: unknown; in?: unknown } | undefined;
    return typeof found?.name === "string" ? { name: found.name, in: String(found.in) } : undefined;
  };
  return diffs
    .filter((diff) => relevant(diff.path))
    .map((diff) => {
      const classified = classify({ action: diff.action, path: diff.path, before: diff.before, after: diff.after });
      const where =
        diff.path[0] === "paths" && diff.path.length >= 3
          ? `${String(diff.path[2]).toUpperCase()} ${diff.path[1]}`
          : diff.path[0] === "paths"
            ? String(diff.path[1])
            : String(diff.path[0]);
      const parameter = parameterAt(diff);
      return { ...classified, pointer: pointerOf(diff.path), where, ...(parameter && { parameter }) };
    });
}

/** Breaks clients, implementations or both. */
export function isBreaking(change: ClassifiedChange): boolean {
  return change.clients === "breaking" || change.implementations === "breaking";
}

/** Changes only the documentation, for both sides. */
export function isDocumentationOnly(change: ClassifiedChange): boolean {
  return change.clients === "documentation" && change.implementations === "documentation";
}

export function worst(changes: ClassifiedChange[], view: "clients" | "implementations"): Impact | "none" {
  if (changes.some((change) => change[view] === "breaking")) return "breaking";
  if (changes.some((change) => change[view] === "non-breaking")) return "non-breaking";
  return changes.length > 0 ? "documentation" : "none";
}

const order: Record<Impact, number> = { breaking: 0, "non-breaking": 1, documentation: 2 };

/** The report as text: clients' view first, then implementations', each breaking first, with pointers. */
export function renderReport(changes: ClassifiedChange[], base: string, format: "text" | "markdown"): string {
  if (format === "markdown") return renderReviewComment(changes, base);
  const lines = [`Contract changes against ${base}`];
  if (changes.length === 0) return `${lines.join("\n")}\n\nNo changes.\n`;
  for (const view of ["clients", "implementations"] as const) {
    lines.push("", `For ${view}: ${worst(changes, view)}`);
    const sorted = [...changes].sort((a, b) => order[a[view]] - order[b[view]]);
    for (const change of sorted) {
      const what = `${change.action} ${/^\d+$/.test(change.key) ? JSON.stringify(changedValue(change)) : change.key}`;
      lines.push(
        `  ${change[view].padEnd(14)} ${change.where.padEnd(40)} ${change.rule.padEnd(28)} ${what}  ${change.pointer}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

const impact = (value: Impact) => (value === "breaking" ? "**breaking**" : value);

/**
 * The comment a reviewer pastes on a pull request: per operation, each change in words, what it does to clients and
 * what implementations must do. Documentation-only changes are counted, not listed.
 */
export function renderReviewComment(changes: ClassifiedChange[], base: string): string {
  const lines = [`### Contract changes against ${base}`, ""];
  if (changes.length === 0) return `${lines.join("\n")}No changes.\n`;
  lines.push(
    `For clients: ${impact(worstOrNone(changes, "clients"))} · for implementations: ${impact(worstOrNone(changes, "implementations"))}`,
  );
  const substantive = changes.filter((change) => !isDocumentationOnly(change));
  for (const [where, readable] of summarizeByOperation(substantive)) {
    lines.push("", `#### ${where}`, "");
    for (const change of readable.sort((a, b) => order[a.implementations] - order[b.implementations])) {
      const must = change.implementations === "breaking" && change.must ? `: ${change.must}` : "";
      lines.push(
        `- ${change.line}. Clients: ${impact(change.clients)}. Implementations: ${impact(change.implementations)}${must}.`,
      );
    }
  }
  const documentation = changes.length - substantive.length;
  if (documentation > 0) lines.push("", `And ${documentation} documentation-only change(s) (descriptions, examples).`);
  return `${lines.join("\n")}\n`;
}

function worstOrNone(changes: ClassifiedChange[], view: "clients" | "implementations"): Impact {
  const found = worst(changes, view);
  return found === "none" ? "documentation" : found;
}
