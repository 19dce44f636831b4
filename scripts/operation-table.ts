/** Renders generated/operations.ts: the table the reference server binds its handlers to. */
import { resolveRef } from "@novu-query/contract/json-pointer";

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

interface OperationObject {
  operationId?: string;
  responses?: Record<string, unknown>;
  requestBody?: unknown;
  parameters?: unknown[];
}

type Spec = { paths: Record<string, Record<string, unknown>> } & Record<string, unknown>;

export interface OperationRow {
  operationId: string;
  method: (typeof methods)[number];
  path: string;
  statuses: number[];
  hasBody: boolean;
  queryParameters: string[];
  queryDefaults: Record<string, unknown>;
  /** The bounds of each numeric query parameter (`limit: { minimum: 1, maximum: 50 }`): the one place a page's maximum is read. */
  queryBounds: Record<string, { minimum?: number; maximum?: number }>;
  /** Each path parameter's example in the spec, for a request that needs no data (as a string; "example" if none). */
  pathExamples: Record<string, string>;
  /** The names of each status's named examples (components/examples), in the spec's order. */
  examples: Record<string, string[]>;
  /**
   * The keys a 422's `errors` names for the operation's declared inputs, as TypeScript literal types: `query.limit`,
   * `` `query.channels[${number}]` `` for an item of an array, `path.subscriberId`, `headers.idempotency-key`,
   * `body.email`.
   */
  validationKeys: string[];
}

function exampleNames(spec: Spec, operation: OperationObject): Record<string, string[]> {
  const names: Record<string, string[]> = {};
  for (const [status, raw] of Object.entries(operation.responses ?? {})) {
    const content = resolveRef(spec, raw).content as Record<string, { examples?: Record<string, unknown> }> | undefined;
    names[status] = Object.keys(content?.["application/json"]?.examples ?? {});
  }
  return names;
}

function parametersIn(spec: Spec, operation: OperationObject, location: "query" | "path" | "header") {
  return (operation.parameters ?? [])
    .map((raw) => resolveRef(spec, raw))
    .filter((parameter) => parameter.in === location)
    .map((parameter) => ({
      name: String(parameter.name),
      schema: resolveRef(spec, parameter.schema),
      example: parameter.example,
    }));
}

function validationKeys(spec: Spec, operation: OperationObject): string[] {
  const keys: string[] = [];
  for (const { name, schema } of parametersIn(spec, operation, "query")) {
    keys.push(`"query.${name}"`);
    if (schema.type === "array") keys.push(`\`query.${name}[\${number}]\``);
  }
  for (const { name } of parametersIn(spec, operation, "path")) keys.push(`"path.${name}"`);
  for (const { name } of parametersIn(spec, operation, "header")) keys.push(`"headers.${name.toLowerCase()}"`);
  if (operation.requestBody !== undefined) {
    const content = resolveRef(spec, operation.requestBody).content as Record<string, { schema?: unknown }> | undefined;
    const schema = resolveRef(spec, content?.["application/json"]?.schema);
    keys.push(
      '"body"',
      ...Object.keys((schema.properties as object | undefined) ?? {}).map((name) => `"body.${name}"`),
    );
  }
  return keys;
}

export function listOperations(spec: Spec): OperationRow[] {
  const rows: OperationRow[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of methods) {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const query = parametersIn(spec, operation, "query");
      rows.push({
        operationId: operation.operationId,
        method,
        path,
        statuses: Object.keys(operation.responses ?? {})
          .map(Number)
          .sort((a, b) => a - b),
        hasBody: operation.requestBody !== undefined,
        queryParameters: query.map(({ name }) => name),
        queryDefaults: Object.fromEntries(
          query.filter(({ schema }) => schema.default !== undefined).map(({ name, schema }) => [name, schema.default]),
        ),
        queryBounds: Object.fromEntries(
          query
            .filter(({ schema }) => schema.minimum !== undefined || schema.maximum !== undefined)
            .map(({ name, schema }) => [
              name,
              {
                ...(schema.minimum !== undefined && { minimum: Number(schema.minimum) }),
                ...(schema.maximum !== undefined && { maximum: Number(schema.maximum) }),
              },
            ]),
        ),
        pathExamples: Object.fromEntries(
          parametersIn(spec, operation, "path").map(({ name, example }) => [name, String(example ?? "example")]),
        ),
        examples: exampleNames(spec, operation),
        validationKeys: validationKeys(spec, operation),
      });
    }
  }
  return rows.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

export function renderOperationTable(rows: OperationRow[]): string {
  const entries = rows.map(
    (row) =>
      `  ${row.operationId}: {\n` +
      `    operationId: "${row.operationId}",\n` +
      `    method: "${row.method}",\n` +
      `    path: "${row.path}",\n` +
      `    expressPath: "${row.path.replace(/\{([^}]+)\}/g, ":$1")}",\n` +
      `    statuses: [${row.statuses.join(", ")}],\n` +
      `    hasBody: ${row.hasBody},\n` +
      `    queryParameters: ${JSON.stringify(row.queryParameters)},\n` +
      `    queryDefaults: ${JSON.stringify(row.queryDefaults)},\n` +
      `    queryBounds: ${JSON.stringify(row.queryBounds)},\n` +
      `    pathExamples: ${JSON.stringify(row.pathExamples)},\n` +
      `    examples: ${JSON.stringify(row.examples)},\n` +
      `  },\n`,
  );
  return (
    "// Generated by `npm run build` from openapi/. Do not edit.\n" +
    'import type { operations } from "./schema.js";\n\n' +
    "/** Every operation of the contract: method, OpenAPI path, Express path, declared statuses, query parameters with their defaults and bounds, path parameters' examples, each status's named examples. */\n" +
    `export const operationTable = {\n${entries.join("")}} as const satisfies Record<keyof operations, unknown>;\n\n` +
    "export type OperationId = keyof typeof operationTable;\n\n" +
    "export const operationIds = /*#__PURE__*/ Object.keys(operationTable) as OperationId[];\n\n" +
    "/** The keys a 422's `errors` names for each operation's declared inputs (an unknown field is named as well, as `body.<field>`). */\n" +
    `export interface ValidationKeys {\n${rows.map((row) => `  ${row.operationId}: ${row.validationKeys.join(" | ")};\n`).join("")}}\n\n` +
    "/** Each operation's declared statuses alone: what the client's errors read, without bundling the whole table. */\n" +
    `export const operationStatuses = {\n${rows.map((row) => `  ${row.operationId}: [${row.statuses.join(", ")}],\n`).join("")}} as const satisfies Record<OperationId, readonly number[]>;\n`
  );
}
