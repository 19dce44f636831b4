/**
 * The contract's method-and-path pairs, relative to where the router is mounted: what the router claims (everything
 * else is the host app's), and the methods a contract path has (for a 405's `Allow`).
 */
import { type OperationId, operationTable } from "@novu-query/contract/operations";
import type { Request } from "express";
import { pathPatternSource } from "./request-metadata.js";

const routes = Object.values(operationTable).map((entry) => ({
  id: entry.operationId as OperationId,
  method: entry.method.toUpperCase(),
  pattern: new RegExp(`^${pathPatternSource(entry.path)}/?$`),
}));

/** The contract's operation a request is by method and path (`req.path` is relative to the mount), if any. */
export function contractOperation(req: Pick<Request, "method" | "path">): OperationId | undefined {
  return routes.find((route) => route.method === req.method && route.pattern.test(req.path))?.id;
}

/** Whether the request is one of the contract's operations by method and path. */
export function isContractRequest(req: Pick<Request, "method" | "path">): boolean {
  return contractOperation(req) !== undefined;
}

/** The methods the contract has at a path, in the operation table's order (none for a path it does not have). */
export function contractMethodsAt(path: string): string[] {
  return [...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method))];
}
