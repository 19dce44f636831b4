/** Closed-loop peak throughput with autocannon: a fixed number of connections, each sending as fast as answers come. */
import autocannon from "autocannon";
import type { HttpRequest } from "./shapes.js";

export interface ThroughputRun {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  /** Answers with a 2xx status, in all. */
  ok: number;
}

export async function closedLoop(
  baseUrl: string,
  request: (i: number) => HttpRequest,
  options: { connections: number; seconds: number; headers: Record<string, string> },
): Promise<ThroughputRun> {
  let i = 0;
  const first = request(0);
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers,
    requests: [
      {
        method: first.method,
        path: first.path,
        // A new request every time, so that each PATCH really changes the subscriber under a new idempotency key.
        setupRequest: (req) => {
          const next = request(i++);
          return {
            ...req,
            method: next.method,
            path: next.path,
            headers: { ...options.headers, ...next.headers },
            ...(next.body === undefined ? {} : { body: next.body }),
          };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ok: result["2xx"],
  };
}
