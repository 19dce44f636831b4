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

export async function fixedRate(
  baseUrl: string,
  request: (i: number) => HttpRequest,
  options: { ratePerSecond: number; count: number; headers: Record<string, string> },
): Promise<FixedRateResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const url = new URL(baseUrl);
  const interval = 1000 / options.ratePerSecond;
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < options.count; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { method, path, body, headers } = request(i);
    inFlight.push(
      new Promise<void>((resolve) => {
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
      }),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { latenciesMs, errors, statuses };
}
