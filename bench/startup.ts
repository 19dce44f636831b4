/**
 * Start-up time to the first answer, side by side in one run: `npm start` (the reference server on PGlite with the
 * demo data, compiled from the sources at each start by scripts/run-server.mjs), the stateful mock (`npm run mock:stateful`), the server command as an
 * installed package runs it (compiled, `node server/dist/...`; after `npm run build`) and the Prism mock
 * (`npm run mock`). Each is started `rounds` times, interleaved; the time runs from spawn until an authenticated GET
 * /v1/notifications is answered 200. One start of each comes first and is not counted: it makes the demo snapshot
 * the later starts copy (server/demo/snapshot.ts), as the first start on a new machine does.
 *   npm run bench:startup -- [--rounds 5]   writes bench/results/startup-<date>.json and bench/STARTUP.md;
 *   `npm run bench` measures it too, into bench/RESULTS.md
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { prismEntry, specFile } from "../mock/prism.js";
import { freePort, runServerScript } from "../scripts/processes.js";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { defaultDemoOptions, demoApiKey } from "../server/demo/options.js";
import { median } from "./stats.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const compiledServer = `${root}server/dist/server/cli.js`;

export interface StartupResult {
  name: string;
  command: string;
  /** Milliseconds from spawn to the first 200, one per counted start. */
  runsMs: number[];
  medianMs: number;
}

interface Candidate {
  name: string;
  command: string;
  args: (port: number) => string[];
  env: Record<string, string>;
}

async function timeToFirstAnswer(candidate: Candidate): Promise<number> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, candidate.args(port), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", PORT: String(port), ...candidate.env },
    stdio: "ignore",
  });
  const key = demoApiKey(defaultDemoOptions.seed, "Production");
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${candidate.name} exited with ${child.exitCode}`);
      if (performance.now() - began > 120_000) throw new Error(`${candidate.name} did not answer within 120 s`);
      const answered = await fetch(`http://127.0.0.1:${port}/v1/notifications?limit=1`, {
        headers: { authorization: `ApiKey ${key}` },
      }).then(
        (response) => response.status === 200,
        () => false,
      );
      if (answered) return Math.round(performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }
}

export async function measureStartup(rounds: number, log: (line: string) => void): Promise<StartupResult[]> {
  const candidates: Candidate[] = [
    { name: "npm start", command: "npm start", args: () => [runServerScript], env: {} },
    {
      name: "stateful mock",
      command: "npm run mock:stateful",
      args: () => [runServerScript, "mock"],
      env: {},
    },
    ...(existsSync(compiledServer)
      ? [
          {
            name: "server command (compiled)",
            command: "npx @novu-query/server",
            args: () => [compiledServer],
            env: {},
          },
        ]
      : []),
    {
      name: "Prism mock",
      command: "npm run mock",
      args: (port: number) => [prismEntry(), "mock", specFile, "-h", "127.0.0.1", "-p", String(port)],
      env: {},
    },
  ];
  for (const candidate of candidates) await timeToFirstAnswer(candidate); // builds snapshots, warms caches
  const runs = new Map(candidates.map((candidate) => [candidate.name, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    for (const candidate of candidates) runs.get(candidate.name)?.push(await timeToFirstAnswer(candidate));
  }
  return candidates.map((candidate) => {
    const runsMs = runs.get(candidate.name) ?? [];
    const result = { name: candidate.name, command: candidate.command, runsMs, medianMs: median(runsMs) };
    log(`  start-up ${candidate.name.padEnd(28)} median ${result.medianMs} ms  (${runsMs.join(", ")})`);
    return result;
  });
}

/** The commands with the 3 s target. */
const targeted = new Set(["npm start", "stateful mock"]);

/** The start-up table of bench/RESULTS.md. */
export function renderStartup(results: StartupResult[]): string[] {
  const prism = results.find((result) => result.name === "Prism mock")?.medianMs ?? 0;
  return [
    "## Start-up (to the first answer)",
    "",
    "From spawn until an authenticated `GET /v1/notifications` is answered 200; median of interleaved starts, after one uncounted start of each. That one builds the demo snapshot, as the first start on a new machine does; every start then runs on a copy of it, taking the spare copy the start before made in the background (server/demo/snapshot.ts). Target: ≤ 3 s for `npm start` and the stateful mock.",
    "",
    "| Command | median | runs (ms) | ÷ Prism | ≤ 3 s |",
    "| --- | ---: | --- | ---: | --- |",
    ...results.map((result) => {
      const target = targeted.has(result.name) ? (result.medianMs <= 3000 ? "met" : "**missed**") : "";
      return `| ${result.name}: \`${result.command}\` | ${(result.medianMs / 1000).toFixed(2)} s | ${result.runsMs.join(", ")} | ${(result.medianMs / (prism || 1)).toFixed(2)}× | ${target} |`;
    }),
    "",
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  exitWithUsageIfAsked("Usage: npm run bench:startup -- [--rounds 5]   writes bench/STARTUP.md");
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results = await measureStartup(Number(values.rounds), log);
  mkdirSync("bench/results", { recursive: true });
  const file = `bench/results/startup-${new Date().toISOString().slice(0, 10)}.json`;
  const measuredAt = new Date().toISOString();
  writeFileSync(file, `${JSON.stringify({ measuredAt, node: process.version, results }, null, 2)}\n`);
  const markdown = [`# Start-up (${measuredAt}, Node ${process.version})`, "", ...renderStartup(results).slice(1)];
  writeFileSync("bench/STARTUP.md", `${markdown.join("\n")}\n`);
  process.stdout.write(`${markdown.join("\n")}\nWrote ${file} and bench/STARTUP.md\n`);
}
