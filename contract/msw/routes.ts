/** Where the handlers listen: the operations' paths, below an app's base URL or on any origin. */
import { type OperationId, operationTable } from "../../generated/operations.js";

export interface HandlerOptions {
  /**
   * Where the app's client sends its requests, e.g. "https://api.example.com" or "/api". Default: any origin, so
   * `createClient({ baseUrl: "http://localhost:3000" })` and a deployed URL are both intercepted.
   */
  baseUrl?: string;
}

/**
 * The URL pattern of an operation. A relative base URL ("/api", as a browser app on its own origin uses) matches on
 * any origin: under Node (Vitest, Jest) there is no page origin to resolve it against.
 */
export function urlPattern(id: OperationId, baseUrl: string | undefined): string {
  const path = operationTable[id].expressPath;
  if (baseUrl === undefined) return `*${path}`;
  const base = baseUrl.replace(/\/+$/, "");
  return base.startsWith("/") ? `*${base}${path}` : `${base}${path}`;
}
