/**
 * The request rules the spec cannot express, in one place beside the validator.
 *
 * Per operation, after the validator (`operationRules`): query parameters the operation does not declare (the
 * validator is told to allow them, so that they are reported together with every other invalid input), numbers
 * that coerced to Infinity, and a missing body where the operation requires one.
 *
 * For every request, before the validator runs (whose recursion a deeply nested body would overflow), in
 * `refuseUnstorableInput`: input the spec cannot refuse but PostgreSQL cannot store, as a 422 naming each input.
 * - U+0000 anywhere (query, path, body strings and keys): PostgreSQL's text and jsonb cannot hold it.
 * - An unpaired UTF-16 surrogate in a body string or key (JSON's `"\ud800"`): jsonb refuses it, and text would
 *   silently turn it into U+FFFD. (A URL cannot carry one: percent-encoded, it is not UTF-8; see the next rule.)
 * - A path segment that is not UTF-8 once percent-decoded (`%ED%A0%80`).
 * - A number JSON can write but a double cannot hold (`1e309` parses as Infinity, which would be stored as null).
 * - A body nested deeper than `maxBodyDepth` levels.
 * - A query key with brackets (`email[0]`, `constructor[x]`): not a parameter of the contract, whatever a query
 *   parser would make of it.
 */

import { contentTypeProblem, isBracketedKey, unknownQueryKey } from "@novu-query/contract/model";
import { type OperationId, operationTable } from "@novu-query/contract/operations";
import type { Request, RequestHandler } from "express";
import { ApiError, type FieldErrors } from "./errors.js";
import { pathPatternSource } from "./request-metadata.js";

/** Deepest nesting of a request body (MongoDB, where Novu keeps subscribers, allows 100 for a whole document). */
export const maxBodyDepth = 64;

const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL cannot store this text as it is, or undefined. */
export function unstorableText(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain the character U+0000";
  if (unpairedSurrogate.test(text)) return "must not contain an unpaired UTF-16 surrogate";
  return undefined;
}

/** The first thing in a parsed JSON value (keys included) that cannot be stored; `depth` is the value's own level. */
function unstorableJson(value: unknown, depth: number): string | undefined {
  if (typeof value === "string") return unstorableText(value);
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "holds a number too large to store";
  if (value === null || typeof value !== "object") return undefined;
  if (depth > maxBodyDepth) return `nests deeper than ${maxBodyDepth} levels`;
  for (const [key, item] of Object.entries(value)) {
    const problem = unstorableText(key) ?? unstorableJson(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

const knownQueryParameters = new Set<string>(Object.values(operationTable).flatMap((entry) => entry.queryParameters));

const pathTemplates = [...new Set(Object.values(operationTable).map((entry) => entry.path))].map((template) => ({
  names: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
  pattern: new RegExp(`^${pathPatternSource(template)}/?$`),
}));

function pathProblems(path: string, problems: FieldErrors): void {
  for (const { names, pattern } of pathTemplates) {
    const match = pattern.exec(path);
    if (!match) continue;
    names.forEach((name, index) => {
      const raw = match[index + 1] as string;
      let value: string;
      try {
        value = decodeURIComponent(raw);
      } catch {
        problems[`path.${name}`] = { messages: ["is not valid UTF-8 once percent-decoded"], value: raw };
        return;
      }
      const problem = unstorableText(value);
      if (problem) problems[`path.${name}`] = { messages: [problem], value };
    });
    return;
  }
}

/**
 * Query keys with brackets (`email[0]`, `channels[]`, `constructor[x]`, `email[__proto__]`): the contract's lists are
 * the parameter repeated (`channels=email&channels=sms`), and it has no object parameters. Each is reported by its key
 * as sent, with its value, before anything would read it as an object (or as a prototype's property).
 */
function bracketedKeys(req: Request, problems: FieldErrors): void {
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!isBracketedKey(key)) continue;
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    problems[`query.${key}`] = unknownQueryKey(key, values, (name) => knownQueryParameters.has(name));
  }
}

/** Every input of the request that cannot be stored, keyed as the other 422 answers key them. */
export function unstorableInputs(req: Request): FieldErrors {
  const problems: FieldErrors = {};
  pathProblems(req.path, problems);
  bracketedKeys(req, problems);
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (isBracketedKey(name)) continue;
    const problem = unstorableText(name) ?? unstorableJson(value, 1);
    if (problem) problems[`query.${name}`] = { messages: [problem], value: typeof value === "string" ? value : null };
  }
  const body: unknown = req.body;
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body)) {
      const problem = unstorableText(name) ?? unstorableJson(value, 2);
      if (problem) problems[`body.${name}`] = { messages: [problem], value: typeof value === "string" ? value : null };
    }
  } else {
    const problem = unstorableJson(body, 1);
    if (problem) problems.body = { messages: [problem], value: null };
  }
  return problems;
}

/**
 * 415 for a body that is not JSON in UTF-8 (the model's `contentTypeProblem`, as the MSW handlers read it too), before
 * the body parser would decode it from another charset: UTF-7's `+ADw-` stored as `<`.
 */
export const refuseUnreadableBody: RequestHandler = (req, _res, next) => {
  if (!hasBodyBytes(req) || !["PATCH", "POST", "PUT"].includes(req.method)) return next();
  const problem = contentTypeProblem(req.headers["content-type"]);
  next(problem ? new ApiError(415, problem) : undefined);
};

/** Answers 422 for input PostgreSQL cannot store; mounted after body parsing, before the validator. */
export const refuseUnstorableInput: RequestHandler = (req, _res, next) => {
  const problems = unstorableInputs(req);
  next(Object.keys(problems).length > 0 ? ApiError.validation(problems) : undefined);
};

/**
 * What the validator lets through that is still wrong with a query, as 422 entries (undefined when nothing is):
 * undeclared parameters, and numbers that coerced to Infinity, which ajv's numeric checks do not catch.
 */
export function queryParameterProblems(id: OperationId, req: Request): FieldErrors | undefined {
  const known: readonly string[] = operationTable[id].queryParameters;
  const query = req.query as Record<string, unknown>;
  let problems: FieldErrors | undefined;
  // Read in place: this runs on every request, and most have nothing to report.
  for (const name of Object.keys(query)) {
    const value = query[name];
    const problem = !known.includes(name)
      ? { messages: ["is not a known query parameter"], value: (value ?? null) as never }
      : typeof value === "number" && !Number.isFinite(value)
        ? { messages: ["must be a finite number"], value: String(value) }
        : undefined;
    if (problem) {
      problems ??= {};
      problems[`query.${name}`] = problem;
    }
  }
  return problems;
}

function hasBodyBytes(req: Request): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/** The operation's rules that the validator does not check, as one 422 (undefined when the request keeps them). */
export function operationRules(id: OperationId, req: Request): ApiError | undefined {
  const problems = queryParameterProblems(id, req);
  if (problems) return ApiError.validation(problems);
  // body-parser reads an empty body as {}; the contract requires one.
  if (operationTable[id].hasBody && !hasBodyBytes(req)) {
    return ApiError.validation({ body: { messages: ["is required"], value: null } });
  }
  return undefined;
}
