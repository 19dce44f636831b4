/**
 * Which operations of the contract the rules have seen answer with success, and a request for each one that needs
 * no data: the operation table is the list, so an operation the contract gains is covered (or reported) at once.
 */
import { type OperationId, operationIds, operationTable } from "@novu-query/contract/operations";

const routes = operationIds.map((id) => {
  const { method, path } = operationTable[id];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+");
  return { id, method: method.toUpperCase(), pattern: new RegExp(`^${source}/?$`) };
});

/** The operation a request went to, by its method and URL path (without the base URL's own path). */
export function operationAt(method: string, url: string, baseUrl: string): OperationId | undefined {
  const base = new URL(baseUrl).pathname.replace(/\/+$/, "");
  const path = new URL(url).pathname.slice(base.length);
  return routes.find((route) => route.method === method.toUpperCase() && route.pattern.test(path))?.id;
}

/** The operation's path with each parameter replaced by the spec's example of it. */
export function examplePath(id: OperationId): string {
  const { path, pathExamples } = operationTable[id];
  const examples: Record<string, string> = pathExamples;
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(examples[name] ?? "example"));
}

/** The operations seen answering 2xx during a run. */
export class Coverage {
  readonly succeeded = new Set<OperationId>();

  record(method: string, url: string, baseUrl: string, status: number): void {
    const id = operationAt(method, url, baseUrl);
    if (id && status >= 200 && status < 300) this.succeeded.add(id);
  }

  /** Operations of the contract that no rule has seen succeed: the suite's open work. */
  missing(): OperationId[] {
    return operationIds.filter((id) => !this.succeeded.has(id));
  }
}
