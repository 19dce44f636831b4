/**
 * Contract changes in words: each change as one line a reviewer reads ("Added the 503 Service Unavailable answer on
 * every operation"), the same change on several operations or answers told once. Fields and parameters are named,
 * never an array index. The rendered docs' Changes section and the CHANGELOG draft are written from these lines.
 */
import { STATUS_CODES } from "node:http";
import type { ClassifiedChange, Impact } from "./rules.js";

export interface ReadableChange {
  line: string;
  clients: Impact;
  implementations: Impact;
  /** What an implementation must do, when the change breaks it. */
  must?: string | undefined;
  rules: string[];
  pointers: string[];
}

const verbs: Record<string, string> = { add: "Added", remove: "Removed", replace: "Changed", rename: "Renamed" };

function code(text: unknown): string {
  return `\`${typeof text === "string" ? text : JSON.stringify(text)}\``;
}

/** What a change is about, in words: `limit` (query parameter), `email` in the request body, the 404 answer, ... */
export function placeOf(change: ClassifiedChange): { place: string; field: string | undefined; status?: string } {
  const [, , , section, ...rest] = change.path.map(String);
  const fields: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "properties" && rest[i + 1] !== undefined) fields.push(rest[++i] as string);
    else if (rest[i] === "items") fields.push("[]");
  }
  const joined = fields.length > 0 ? fields.join(".").replaceAll(".[]", "[]") : undefined;
  // The items of a list parameter are the parameter itself to a reader (`severity`, not `[]` in it).
  const field = section === "parameters" && joined === "[]" ? undefined : joined;
  if (section === "parameters") {
    const name = change.parameter ? `${change.parameter.in} parameter ${code(change.parameter.name)}` : "a parameter";
    return { place: `the ${name}`, field };
  }
  if (section === "requestBody") return { place: "the request body", field };
  if (section === "responses") {
    const status = rest[0] as string;
    const header = rest[1] === "headers" ? ` header ${code(rest[2])} of` : "";
    return { place: `${header ? `the${header} ` : ""}the ${status} answer`, field, status };
  }
  return { place: change.where, field };
}

/** The value a change concerns: an array entry by its value (a field name, an enum value), not its index. */
export function changedValue(change: ClassifiedChange): unknown {
  return change.action === "remove" ? change.before : (change.after ?? change.before);
}

/** One change in words, without the operation it is on. */
export function describe(change: ClassifiedChange): string {
  const { place, field, status } = placeOf(change);
  const verb = verbs[change.action] ?? change.action;
  const value = changedValue(change);
  const of = field ? `${code(field)} in ${place}` : place;
  if (change.rule === "documentation") return `${verb} ${code(change.key)} of ${of}`;
  if (change.key === "const" && change.action === "add") return `Pinned ${of} to ${code(value)}`;
  if (change.owner === "enum")
    return `${verb} the value ${code(value)} ${change.action === "remove" ? "from" : "to"} ${of}`;
  if (change.owner === "required") {
    return `Made ${code(value)} ${change.action === "remove" ? "optional" : "required"} in ${field ? of : place}`;
  }
  if (change.path.at(-2) === "properties") {
    return `${verb} the field ${code(change.key)} ${change.action === "remove" ? "from" : "in"} ${place}${field && field !== change.key ? ` (${code(field)})` : ""}`;
  }
  if (change.path.length === 5 && change.path[3] === "responses" && status) {
    return `${verb} the ${status} ${STATUS_CODES[Number(status)] ?? ""} answer`.replace(/ +answer$/, " answer");
  }
  if (change.path[3] === "parameters" && change.path.length === 5) return `${verb} ${place}`;
  if (change.path.length <= 3) return `${verb} the operation`;
  const values = change.action === "replace" ? ` (${code(change.before)} → ${code(change.after)})` : "";
  return `${verb} ${code(change.key)} of ${of}${values}`;
}

/**
 * The name a change is about, as a CHANGELOG line must name it: the parameter, the field, the enum value, the status,
 * the header; the changed key otherwise.
 */
export function subjectOf(change: ClassifiedChange): string {
  const { field, status } = placeOf(change);
  if (change.owner === "enum" || change.owner === "required") return String(changedValue(change));
  if (change.path.at(-2) === "properties") return change.key;
  if (change.parameter && (change.path.length === 5 || !field)) return change.parameter.name;
  if (change.path.at(-2) === "headers") return change.key;
  if (change.path.length === 5 && change.path[3] === "responses" && status) return status;
  return (
    field
      ?.split(/[.[\]]+/)
      .filter(Boolean)
      .at(-1) ??
    change.parameter?.name ??
    change.key
  );
}

/**
 * A field removed and one added beside it with the same schema, on one operation and answer: a rename, told as one
 * line. Both changes stay in the list the gate reads (each breaks one side).
 */
function renames(changes: ClassifiedChange[]): Map<ClassifiedChange, ClassifiedChange> {
  const pairs = new Map<ClassifiedChange, ClassifiedChange>();
  const isField = (change: ClassifiedChange) => change.path.at(-2) === "properties";
  const parent = (change: ClassifiedChange) => `${change.where}\n${change.path.slice(0, -1).join("/")}`;
  const added = changes.filter((change) => change.action === "add" && isField(change));
  for (const removed of changes.filter((change) => change.action === "remove" && isField(change))) {
    const twin = added.find(
      (candidate) =>
        parent(candidate) === parent(removed) &&
        !pairs.has(candidate) &&
        JSON.stringify(candidate.after) === JSON.stringify(removed.before),
    );
    if (twin) pairs.set(removed, twin);
  }
  return pairs;
}

const worse = (a: Impact, b: Impact): Impact =>
  a === "breaking" || b === "breaking" ? "breaking" : a === "non-breaking" || b === "non-breaking" ? "non-breaking" : a;

/** The changes as a reader meets them: a rename as one change (from its removal and its addition). */
function readable(changes: ClassifiedChange[]): (ClassifiedChange & { text: string })[] {
  const pairs = renames(changes);
  const paired = new Set(pairs.values());
  return changes
    .filter((change) => !paired.has(change))
    .map((change) => {
      const twin = pairs.get(change);
      if (!twin) return { ...change, text: describe(change) };
      const { place, field } = placeOf(change);
      const at = field && field !== change.key ? ` (${code(field)} → ${code(placeOf(twin).field)})` : "";
      return {
        ...change,
        clients: worse(change.clients, twin.clients),
        implementations: worse(change.implementations, twin.implementations),
        rule: `${change.rule}+${twin.rule}`,
        pointer: `${change.pointer} ${twin.pointer}`,
        text: `Renamed the field ${code(change.key)} to ${code(twin.key)} in ${place}${at}`,
      };
    });
}

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The changes told once each: the same change on several answers of an operation is one line naming the answers, and
 * the same line on several operations names them (or says "every operation").
 */
export function summarize(changes: ClassifiedChange[], operations: string[]): ReadableChange[] {
  return grouped(changes).map(({ wheres, ...change }) => {
    const on = operations.every((operation) => wheres.has(operation))
      ? "every operation"
      : list([...wheres].filter((where) => operations.includes(where)).sort()) || list([...wheres]);
    return { ...change, line: `${change.line}, on ${on}` };
  });
}

/** Each operation's changes told once each, without naming the operation (the reviewer's comment groups by it). */
export function summarizeByOperation(changes: ClassifiedChange[]): Map<string, ReadableChange[]> {
  const byOperation = new Map<string, ReadableChange[]>();
  for (const where of new Set(changes.map((change) => change.where))) {
    const own = grouped(changes.filter((change) => change.where === where));
    byOperation.set(
      where,
      own.map(({ wheres: _w, ...change }) => change),
    );
  }
  return byOperation;
}

/** The changes as lines, each with the operations it is on. */
function grouped(changes: ClassifiedChange[]): (ReadableChange & { wheres: Set<string> })[] {
  type Group = ReadableChange & { statuses: Set<string>; wheres: Set<string> };
  const byStatus = new Map<string, Group>();
  for (const change of readable(changes)) {
    const { status } = placeOf(change);
    const { text } = change;
    // "Pinned `statusCode` in the 404 answer to `404`": one line for every status, in each status's words.
    const template = status ? text.replaceAll(status, "{status}") : text;
    const key = `${change.where}\n${template}\n${change.clients}\n${change.implementations}`;
    const group = byStatus.get(key) ?? {
      line: template,
      clients: change.clients,
      implementations: change.implementations,
      must: change.must,
      rules: [],
      pointers: [],
      statuses: new Set<string>(),
      wheres: new Set<string>([change.where]),
    };
    if (status) group.statuses.add(status);
    for (const rule of change.rule.split("+")) if (!group.rules.includes(rule)) group.rules.push(rule);
    group.pointers.push(...change.pointer.split(" "));
    byStatus.set(key, group);
  }
  const byLine = new Map<string, Group>();
  for (const group of byStatus.values()) {
    const statuses = [...group.statuses].sort();
    const line =
      statuses.length > 1
        ? group.line
            .replace("the {status} answer", `the ${list(statuses)} answers`)
            .replaceAll("`{status}`", "its status")
        : group.line.replaceAll("{status}", statuses[0] ?? "");
    const key = `${line}\n${group.clients}\n${group.implementations}`;
    const merged = byLine.get(key);
    if (merged) {
      for (const where of group.wheres) merged.wheres.add(where);
      merged.pointers.push(...group.pointers);
      for (const rule of group.rules) if (!merged.rules.includes(rule)) merged.rules.push(rule);
    } else byLine.set(key, { ...group, line, wheres: new Set(group.wheres) });
  }
  return [...byLine.values()].map(({ statuses: _s, ...change }) => change);
}
