/**
 * The bundled spec as the MSW handlers read it: its named examples (an error's status, reason and the server's words),
 * each operation's parameters and body with their validators (ajv, coercing parameters as the server does), and a
 * query string read as the schema types it.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import spec from "../../generated/openapi.json" with { type: "json" };

export { spec };

import { type OperationId, operationTable } from "../../generated/operations.js";
import { pointerOf, resolveRef } from "../json-pointer.js";

interface SpecParameter {
  name: string;
  in: string;
  required?: boolean;
}

export type Json = Record<string, unknown>;

// ajv-formats is CommonJS; its default export arrives wrapped under some ESM loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

export function resolve(node: unknown): Json {
  return resolveRef<Json>(spec, node);
}

let validators: { params: Ajv2020; body: Ajv2020 } | undefined;

/** Two validators over the bundled spec: parameters arrive as text and are coerced like the server's; bodies are not. */
function specAjv(): { params: Ajv2020; body: Ajv2020 } {
  if (validators) return validators;
  const make = (coerce: boolean) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: coerce ? "array" : false });
    addFormats(ajv);
    ajv.addSchema(spec as object, "spec");
    return ajv;
  };
  validators = { params: make(true), body: make(false) };
  return validators;
}

export interface OperationCheck {
  parameters: {
    where: "query" | "path";
    name: string;
    required: boolean;
    /** The schema's type: what a query parameter's text becomes in the stateful mode. */
    type: "string" | "integer" | "number" | "boolean" | "array";
    validate: ValidateFunction;
  }[];
  body?: ValidateFunction;
}

const checks = new Map<OperationId, OperationCheck>();

export function operationCheck(id: OperationId): OperationCheck {
  const cached = checks.get(id);
  if (cached) return cached;
  const { path, method } = operationTable[id];
  const operation = resolve((spec.paths as Json)[path]) as Json;
  const base = pointerOf(["paths", path, method]);
  const { params, body } = specAjv();
  const parameters = (((operation[method] as Json).parameters ?? []) as unknown[]).flatMap((raw, index) => {
    const parameter = resolve(raw) as unknown as SpecParameter;
    if (parameter.in !== "query" && parameter.in !== "path") return [];
    const schema = typeof (raw as Json).$ref === "string" ? `${(raw as Json).$ref}/schema`.slice(1) : undefined;
    const type = resolve((parameter as unknown as Json).schema).type;
    return [
      {
        where: parameter.in as "query" | "path",
        name: parameter.name,
        required: parameter.required === true,
        type: (typeof type === "string" ? type : "string") as OperationCheck["parameters"][number]["type"],
        validate: params.compile({ $ref: `spec#${schema ?? `${base}/parameters/${index}/schema`}` }),
      },
    ];
  });
  const check: OperationCheck = { parameters };
  if (operationTable[id].hasBody) {
    const requestBody = (operation[method] as Json).requestBody as Json;
    const at = typeof requestBody.$ref === "string" ? requestBody.$ref.slice(1) : `${base}/requestBody`;
    check.body = body.compile({ $ref: `spec#${at}/content/application~1json/schema` });
  }
  checks.set(id, check);
  return check;
}

export function exampleValue(name: string): unknown {
  const example = (spec.components.examples as Record<string, { value?: unknown }>)[name];
  if (!example) throw new Error(`the contract has no example named ${name}`);
  return structuredClone(example.value);
}

/**
 * A named error example's status, reason and message (the server's words) and a 422's `ctx`, with this request's time
 * and path.
 */
export function errorFrame(exampleName: string, url: URL) {
  const { statusCode, error, message, ctx } = exampleValue(exampleName) as {
    statusCode: number;
    error: string;
    message: string;
    ctx?: object;
  };
  const frame = { statusCode, error, message, timestamp: new Date().toISOString(), path: url.pathname + url.search };
  return ctx === undefined ? frame : { ...frame, ctx };
}

export function requestId(): string {
  return typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

/** A query parameter's text as the schema types it (the validator has accepted it already). */
export function queryOf(id: OperationId, url: URL): Json {
  const query: Json = { ...(operationTable[id].queryDefaults as Json) };
  for (const { where, name, type } of operationCheck(id).parameters) {
    if (where !== "query" || !url.searchParams.has(name)) continue;
    const text = url.searchParams.get(name) as string;
    query[name] =
      type === "array"
        ? url.searchParams.getAll(name)
        : type === "integer" || type === "number"
          ? Number(text)
          : type === "boolean"
            ? text === "true"
            : text;
  }
  return query;
}

/** An operation's answer for a status as the spec declares it (its headers, its content). */
export function responseOf(id: OperationId, status: number): { headers?: Record<string, unknown> } {
  const { path, method } = operationTable[id];
  const operation = resolve((spec.paths as Json)[path])[method] as { responses: Json };
  return resolve(operation.responses[String(status)]);
}
