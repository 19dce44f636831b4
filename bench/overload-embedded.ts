/**
 * Graceful overload on the embedded default, side by side in one run: `npm start` (PGlite with the demo data) with
 * PGlite on its worker thread (the default) and on the server's own thread (PGLITE_THREAD=false, as before 0.3.0).
 * Each: cheap requests (list, get, search without filters, in turn) at a fixed rate alone, then beside list searches
 * (`search=`, an expensive request: admission gives it few turns) sent at three times what the server answers of them.
 *   npm run bench:overload -- [--seconds 10] [--rate 50]   writes bench/results/overload-embedded-<date>.json and
 *   bench/RESULTS.md's section (re-rendered from the latest full run); `npm run bench` measures it too
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startServerProcess } from "../scripts/processes.js";
import { exitWithUsageIfAsked } from "../scripts/usage.js";
import { loadConfig } from "../server/config.js";
import { openStore } from "../server/store/store.js";
import { benchServerEnv, node24 } from "./benchmarked-server.js";
import { benchContext } from "./context.js";
import { benchDatabaseUrl } from "./database.js";
import {
  type EmbeddedOverload,
  measureOverload,
  measurePostgresOverload,
  type OverloadResult,
  type PostgresOverload,
} from "./overload.js";
import { rerenderResults } from "./report.js";
import { assertMigratedSchema } from "./schema-check.js";
import { benchShapes, type HttpRequest } from "./shapes.js";
import { closedLoop } from "./throughput.js";

/**
 * The full run's overload section measured again on its own: the server (production, Node 24) on PostgreSQL over the
 * bench data. Writes bench/results/overload-postgres-<date>.json and re-renders RESULTS.md with it.
 */
async function overloadOnPostgres(
  databaseUrlOption: string | undefined,
  seconds: number,
  log: (line: string) => void,
): Promise<string> {
  const databaseUrl = await benchDatabaseUrl(databaseUrlOption);
  const opened = await openStore({ databaseUrl, totalCountCap: 50_000 });
  const ctx = await benchContext(opened.store);
  await opened.close();
  // Its numbers go into RESULTS.md: the database must have the migrations' schema, as for the full run.
  await assertMigratedSchema(databaseUrl, log);
  const env = benchServerEnv(databaseUrl);
  const { binary, version: node } = node24();
  log(`Overload on PostgreSQL (${node}): cheap requests at 100/s, alone and beside email searches at 3× capacity`);
  const server = await startServerProcess(env, [], binary);
  const measuredAt = new Date().toISOString();
  let result: OverloadResult;
  try {
    // The full run measures this after every other section has read the data; alone, a cold cache made the searches
    // read from disk (capacity 1/s, the run alone 69 ms p99, measured). Each shape first reads its rows once more.
    const headers = { authorization: `ApiKey ${ctx.apiKey}` };
    const shapes = benchShapes(ctx);
    for (const shape of shapes.filter((candidate) => candidate.id.startsWith("search."))) {
      await closedLoop(server.baseUrl, shape.http, { connections: 4, seconds: 1, headers });
    }
    result = await measurePostgresOverload(server.baseUrl, headers, shapes, {
      cheapRate: 100,
      seconds,
      timeoutMs: loadConfig(env).statementTimeoutMs,
    });
  } finally {
    await server.stop();
  }
  log(
    `  cheap p99 ${result.cheapAlone.p99} ms alone, ${result.cheapMixed.p99} ms beside ${result.expensiveRate}/s (capacity ${result.expensiveCapacity}/s); flood ${JSON.stringify(result.expensive.statuses)}`,
  );
  mkdirSync("bench/results", { recursive: true });
  const file = `bench/results/overload-postgres-${measuredAt.slice(0, 10)}.json`;
  const section: PostgresOverload = { measuredAt, node, result };
  writeFileSync(file, `${JSON.stringify(section, null, 2)}\n`);
  rerenderResults("bench");
  return file;
}

export async function measureEmbeddedOverload(
  options: { seconds: number; cheapRate: number },
  log: (line: string) => void,
): Promise<EmbeddedOverload[]> {
  const modes = [
    { mode: "worker thread" as const, env: { PGLITE_THREAD: "true" } },
    { mode: "server thread" as const, env: { PGLITE_THREAD: "false" } },
  ];
  const results: EmbeddedOverload[] = [];
  for (const { mode, env } of modes) {
    const server = await startServerProcess({ ...env, LOG_LEVEL: "warn" });
    try {
      const headers = { authorization: `ApiKey ${server.keys.Production}` };
      const first = await fetch(`${server.baseUrl}/v1/notifications?limit=50`, { headers });
      if (first.status !== 200)
        throw new Error(`${mode}: the first list answered ${first.status}: ${await first.text()}`);
      const page = (await first.json()) as { data: { _id: string }[] };
      const ids = page.data.map((n) => n._id);
      const cheap = (i: number): HttpRequest => {
        const paths = ["/v1/notifications?limit=10", `/v1/notifications/${ids[i % ids.length]}`, "/v2/subscribers"];
        return { method: "GET", path: paths[i % paths.length] as string };
      };
      const terms = ["a", "e", "o", "an", "ma", "er", "example"];
      const expensive = (i: number): HttpRequest => ({
        method: "GET",
        path: `/v1/notifications?limit=50&search=${terms[i % terms.length]}`,
      });
      const result = await measureOverload(
        server.baseUrl,
        headers,
        cheap,
        { label: "list searches (search=a, e, ma, ...)", request: expensive },
        { cheapRate: options.cheapRate, seconds: options.seconds, timeoutMs: 30_000 },
      );
      log(
        `  ${mode}: cheap p99 ${result.cheapAlone.p99} ms alone, ${result.cheapMixed.p99} ms beside ${result.expensiveRate}/s list searches (capacity ${result.expensiveCapacity}/s); flood ${JSON.stringify(result.expensive.statuses)}`,
      );
      results.push({ mode, env, result });
    } finally {
      await server.stop();
    }
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  exitWithUsageIfAsked(
    "Usage: npm run bench:overload -- [--seconds 10] [--rate 50]\n" +
      "       npm run bench:overload -- --postgres [--database-url URL] [--seconds 10]\n" +
      "  overload on the embedded default (PGlite), worker thread and server thread side by side;\n" +
      "  writes bench/results/overload-embedded-<date>.json and re-renders bench/RESULTS.md with it.\n" +
      "  --postgres: the full run's overload section instead, the server on PostgreSQL over the bench data (npm run\n" +
      "  bench:data first), cheap requests at 100/s beside email searches; writes overload-postgres-<date>.json",
  );
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "10" },
      rate: { type: "string", default: "50" },
      postgres: { type: "boolean", default: false },
      "database-url": { type: "string" },
    },
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (values.postgres) {
    const file = await overloadOnPostgres(values["database-url"], Number(values.seconds), log);
    log(`Wrote ${file} and bench/RESULTS.md`);
    process.exit(0);
  }
  log("Overload on the embedded default (PGlite, npm start's demo data)");
  const measuredAt = new Date().toISOString();
  const results = await measureEmbeddedOverload(
    { seconds: Number(values.seconds), cheapRate: Number(values.rate) },
    log,
  );
  mkdirSync("bench/results", { recursive: true });
  const file = `bench/results/overload-embedded-${measuredAt.slice(0, 10)}.json`;
  writeFileSync(file, `${JSON.stringify({ measuredAt, node: process.version, results }, null, 2)}\n`);
  // RESULTS.md again, from the latest full run with this measurement (now the newest file) in it.
  rerenderResults("bench");
  log(`Wrote ${file} and bench/RESULTS.md`);
}
