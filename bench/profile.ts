/**
 * The CPU split of one operation under load: a server started with `--cpu-prof` serves a closed loop of that one
 * operation; its profile's samples within the loop's window are split by category (cpu.ts), and the CPU time of the
 * server and of PostgreSQL during the window is read from /proc. Profiling slows the server a little; the shares and
 * the split between Node and PostgreSQL are what this run is for, the throughput table measures speed without it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { startServerProcess } from "../scripts/processes.js";
import {
  type CpuCategory,
  type CpuProfile,
  monotonicMicros,
  postgresCpuMs,
  processCpuMs,
  profileSplit,
} from "./cpu.js";
import type { HttpRequest } from "./shapes.js";
import { closedLoop } from "./throughput.js";

export interface OperationProfile {
  operation: string;
  requests: number;
  /** CPU per request of the server process (all its threads) and of every PostgreSQL process, in ms. */
  nodeMsPerRequest: number;
  postgresMsPerRequest: number | undefined;
  /** Shares of the server's busy main-thread time, in percent. */
  shares: Record<CpuCategory, number>;
}

export async function profileOperation(
  operation: string,
  request: (i: number) => HttpRequest,
  options: {
    env: Record<string, string>;
    /** The Node binary to run the server with. */
    node: string;
    headers: Record<string, string>;
    connections: number;
    seconds: number;
    postgresLocal: boolean;
  },
): Promise<OperationProfile> {
  const dir = mkdtempSync(join(os.tmpdir(), "bench-profile-"));
  try {
    const server = await startServerProcess(options.env, [], options.node, ["--cpu-prof", `--cpu-prof-dir=${dir}`]);
    const pid = server.child.pid as number;
    // A short warm-up, so that the window holds the steady state (compiled validators, cached plans, warm pool).
    await closedLoop(server.baseUrl, request, {
      connections: options.connections,
      seconds: 1,
      headers: options.headers,
    });
    const [cpuBefore, postgresBefore, from] = [processCpuMs(pid) ?? 0, postgresCpuMs(), monotonicMicros()];
    const run = await closedLoop(server.baseUrl, request, {
      connections: options.connections,
      seconds: options.seconds,
      headers: options.headers,
    });
    const [cpuAfter, postgresAfter, to] = [processCpuMs(pid) ?? 0, postgresCpuMs(), monotonicMicros()];
    await server.stop();
    // The main thread's profile is the largest (the demo snapshot worker, if any, writes a small one).
    const files = readdirSync(dir).filter((file) => file.endsWith(".cpuprofile"));
    const main = files.sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
    if (!main) throw new Error(`the profiled server wrote no profile for ${operation}`);
    const profile = JSON.parse(readFileSync(join(dir, main), "utf8")) as CpuProfile;
    const requests = run.ok + run.non2xx;
    const perRequest = (ms: number) => Math.round((ms / Math.max(1, requests)) * 1000) / 1000;
    return {
      operation,
      requests,
      nodeMsPerRequest: perRequest(cpuAfter - cpuBefore),
      postgresMsPerRequest: options.postgresLocal ? perRequest(postgresAfter - postgresBefore) : undefined,
      shares: profileSplit(profile, from, to).shares,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
