import { type OperationId, operationTable } from "@novu-query/contract/operations";
import type { Request } from "express";

/** What express-openapi-validator attaches to a request it matched to an operation of the spec. */
export interface OperationMetadata {
  openApiRoute?: string;
  pathParams?: Record<string, string>;
  schema?: { operationId?: string };
}

export function operationMetadata(req: Request): OperationMetadata | undefined {
  return (req as Request & { openapi?: OperationMetadata }).openapi;
}

/** The operation the validator routed a request to, if any. */
export function operationOf(req: Request): OperationId | undefined {
  const id = operationMetadata(req)?.schema?.operationId;
  return id !== undefined && id in operationTable ? (id as OperationId) : undefined;
}

/** An OpenAPI path template as a regular expression source: `{name}` becomes one capturing group, `([^/]+)`. */
export function pathPatternSource(template: string): string {
  return template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "([^/]+)");
}
