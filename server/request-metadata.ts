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
