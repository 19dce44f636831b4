import { readFileSync } from "node:fs";
import { pointerOf, resolveRef } from "@novu-query/contract/json-pointer";

export type JsonObject = { [key: string]: unknown };

/** The bundled spec, exactly as the server, mock and docs load it. */
export const spec: JsonObject = JSON.parse(
  readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"),
);

/** Follows a local `$ref` ("#/components/...") inside the bundled spec. */
export function resolve<T = JsonObject>(node: unknown): T {
  return resolveRef<T>(spec, node);
}

export const httpMethods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

export interface SpecOperation {
  method: string;
  path: string;
  operation: JsonObject;
}

export function listSpecOperations(): SpecOperation[] {
  const paths = spec.paths as Record<string, JsonObject>;
  return Object.entries(paths).flatMap(([path, item]) =>
    httpMethods
      .filter((method) => item[method])
      .map((method) => ({ method, path, operation: item[method] as JsonObject })),
  );
}

/** Escapes one key for use in a JSON pointer. */
export function pointerKey(key: string): string {
  return pointerOf([key]).slice(1);
}

export function findOperation(operationId: string): SpecOperation {
  const found = listSpecOperations().find(({ operation }) => operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the spec`);
  return found;
}

/** The operation's parameters, with their `$ref`s resolved. */
export function parametersOf(operationId: string): JsonObject[] {
  return (findOperation(operationId).operation.parameters as JsonObject[]).map((parameter) => resolve(parameter));
}
