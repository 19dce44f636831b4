/**
 * Graceful overload, measured: cheap requests at a fixed rate, first alone, then beside an expensive request class
 * sent at three times what the server can serve of it. The cheap requests' p99 should stay within 2× of the run
 * alone, and every expensive request should be answered (200, or 503 with Retry-After) within the statement timeout.
 */
import { fixedRate } from "./fixed-rate.js";
import { type HttpRequest, type Shape, shapeById } from "./shapes.js";
import { type Summary, summarize } from "./stats.js";
import { closedLoop } from "./throughput.js";

export interface OverloadResult {
  cheapRate: number;
  expensiveLabel: string;
  /** Expensive requests answered 200 per second in a closed loop of 16 connections: what the server can serve. */
  expensiveCapacity: number;
  expensiveRate: number;
  cheapAlone: Summary & { statuses: Record<string, number> };
  cheapMixed: Summary & { statuses: Record<string, number> };
  expensive: Summary & { statuses: Record<string, number> };
  timeoutMs: number;
}

/** How long the server is left to finish the capacity run's work before the run alone. */
const settleMs = 3000;

export async function measureOverload(
  baseUrl: string,
  headers: Record<string, string>,
  cheap: (i: number) => HttpRequest,
  expensive: { label: string; request: (i: number) => HttpRequest },
  options: { cheapRate: number; seconds: number; timeoutMs: number },
): Promise<OverloadResult> {
  const capacitySeconds = 3;
  const capacityRun = await closedLoop(baseUrl, expensive.request, {
    connections: 16,
    seconds: capacitySeconds,
    headers,
  });
  // Refused answers served nobody: capacity counts the 200s only.
  const expensiveCapacity = Math.max(1, Math.round(capacityRun.ok / capacitySeconds));
  const expensiveRate = expensiveCapacity * 3;
  // The capacity run leaves expensive searches admitted or queued when it stops; they finish within a queue timeout and
  // a statement or two. Without this pause they ran into the first second of the run alone and set its p99 (up to
  // 113 ms against 14-23 ms, measured), which made the ratio read the noise.
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const cheapCount = options.cheapRate * options.seconds;
  const alone = await fixedRate(baseUrl, cheap, { ratePerSecond: options.cheapRate, count: cheapCount, headers });
  const [mixed, flood] = await Promise.all([
    fixedRate(baseUrl, cheap, { ratePerSecond: options.cheapRate, count: cheapCount, headers }),
    fixedRate(baseUrl, expensive.request, {
      ratePerSecond: expensiveRate,
      count: expensiveRate * options.seconds,
      headers,
    }),
  ]);
  return {
    cheapRate: options.cheapRate,
    expensiveLabel: expensive.label,
    expensiveCapacity,
    expensiveRate,
    cheapAlone: { ...summarize(alone.latenciesMs), statuses: alone.statuses },
    cheapMixed: { ...summarize(mixed.latenciesMs), statuses: mixed.statuses },
    expensive: { ...summarize(flood.latenciesMs), statuses: flood.statuses },
    timeoutMs: options.timeoutMs,
  };
}

/** One mode of the embedded default under overload (bench/overload-embedded.ts). */
export interface EmbeddedOverload {
  mode: "worker thread" | "server thread";
  env: Record<string, string>;
  result: OverloadResult;
}

/** The PostgreSQL overload section measured on its own (`npm run bench:overload -- --postgres`): its file's content. */
export interface PostgresOverload {
  measuredAt: string;
  node: string;
  result: OverloadResult;
}

/**
 * The server on PostgreSQL over the bench data: cheap requests (list, get, search without filters, in turn) beside
 * `email "user"`, a term that no kept count answers (an e-mail domain's or a short term's would: migrations 003 and
 * 004) and that tens of thousands of rows hold: its count reads them all.
 */
export function measurePostgresOverload(
  baseUrl: string,
  headers: Record<string, string>,
  shapes: Shape[],
  options: { cheapRate: number; seconds: number; timeoutMs: number },
): Promise<OverloadResult> {
  const cheap = ["list.default", "get.byId", "search.default"].map((id) => shapeById(shapes, id));
  const expensive = shapeById(shapes, "search.emailManyUnderCap");
  return measureOverload(
    baseUrl,
    headers,
    (i) => (cheap[i % cheap.length] as Shape).http(i),
    { label: expensive.label, request: expensive.http },
    options,
  );
}
