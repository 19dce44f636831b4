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
  const field = fields.length > 0 ? fields.join(".").replaceAll(".[]", "[]") : undefined;
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

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The changes told once each: the same change on several answers of an operation is one line naming the answers, and
 * the same line on several operations names them (or says "every operation").
 */
export function summarize(changes: ClassifiedChange[], operations: string[]): ReadableChange[] {
  type Group = ReadableChange & { statuses: Set<string>; wheres: Set<string> };
  const byStatus = new Map<string, Group>();
  for (const change of changes) {
    const { status } = placeOf(change);
    const text = describe(change);
    // "Pinned `statusCode` in the 404 answer to `404`": one line for every status, in each status's words.
    const template = status ? text.replaceAll(status, "{status}") : text;
    const key = `${change.where}\n${template}\n${change.clients}\n${change.implementations}`;
    const group = byStatus.get(key) ?? {
      line: template,
      clients: change.clients,
      implementations: change.implementations,
      rules: [],
      pointers: [],
      statuses: new Set<string>(),
      wheres: new Set<string>([change.where]),
    };
    if (status) group.statuses.add(status);
    if (!group.rules.includes(change.rule)) group.rules.push(change.rule);
    group.pointers.push(change.pointer);
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
  return [...byLine.values()].map(({ statuses: _s, wheres, ...change }) => {
    const on = operations.every((operation) => wheres.has(operation))
      ? "every operation"
      : list([...wheres].filter((where) => operations.includes(where)).sort()) || list([...wheres]);
    return { ...change, line: `${change.line}, on ${on}` };
  });
}
