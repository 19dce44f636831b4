/**
 * Open-loop HTTP latency: requests leave on a fixed schedule whether or not earlier ones have been answered, and
 * each latency is measured from the moment its request was due (so a stall shows up in every request it delays,
 * not just the one it hit). Sub-millisecond resolution, unlike autocannon's whole milliseconds.
 */
import http from "node:http";
import type { HttpRequest } from "./shapes.js";

export interface FixedRateResult {
  latenciesMs: number[];
  errors: number;
  statuses: Record<string, number>;
}

/**
 * Starts `send(i, due)` for i = 0 .. count - 1 on a fixed schedule of `ratePerSecond`, without waiting for earlier
 * ones, and resolves when every one has; `due` is when each was due, to measure latency from.
 */
export async function onSchedule(
  count: number,
  ratePerSecond: number,
  send: (i: number, due: number) => Promise<void>,
): Promise<void> {
  const interval = 1000 / ratePerSecond;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(i, due));
  }
  await Promise.all(inFlight);
}

export async function fixedRate(
  baseUrl: string,
  request: (i: number) => HttpRequest,
  options: { ratePerSecond: number; count: number; headers: Record<string, string> },
): Promise<FixedRateResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const url = new URL(baseUrl);
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  await onSchedule(options.count, options.ratePerSecond, (i, due) => {
    const { method, path, body, headers } = request(i);
    return new Promise<void>((resolve) => {
      const req = http.request(
        { agent, host: url.hostname, port: url.port, method, path, headers: { ...options.headers, ...headers } },
        (res) => {
          res.resume();
          res.on("end", () => {
            latenciesMs.push(performance.now() - due);
            statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
            if ((res.statusCode ?? 500) >= 400) errors++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  });
  agent.destroy();
  return { latenciesMs, errors, statuses };
}
