/**
 * The worker thread that PGlite runs in (pglite-worker.ts starts it): PGlite's WebAssembly runs each statement to the
 * end without yielding, so on the server's own thread a slow query stops every other request, admission's refusals
 * included. Here it blocks only this thread. Messages: `{ id, sql, params }` answered `{ id, rows, affectedRows }` or
 * `{ id, error }`; `{ id, close: true }` closes the database.
 */
import { parentPort, workerData } from "node:worker_threads";
import { abortedExitCode } from "./pglite-exit.js";
import { openPGlite } from "./pglite-open.js";

export interface ThreadRequest {
  id: number;
  sql?: string;
  params?: unknown[];
  close?: true;
}

export type ThreadAnswer =
  | { id: number; rows: unknown[]; affectedRows: number | undefined }
  | { id: number; error: { message: string; fields: Record<string, unknown> } };

const port = parentPort;
if (!port) throw new Error("pglite-thread.ts runs as a worker thread");

const { dataDir, template } = workerData as { dataDir?: string; template?: string };
const pglite = await openPGlite(dataDir, template);
endThreadWhenPostgresAborts(pglite);

/**
 * A PANIC (a WAL segment that cannot be written on a full disk) aborts PostgreSQL's WebAssembly instance; PGlite
 * swallows the abort and calls the dead instance again in a loop, so the thread would spin forever. The abort is seen
 * here as it is thrown, and the thread ends at once with `abortedExitCode`: pglite-supervisor.ts opens the directory
 * again. (PGlite's own longjmp, how an ERROR returns to its main loop, is thrown there too and is left alone.)
 */
function endThreadWhenPostgresAborts(instance: typeof pglite): void {
  const internals = instance as unknown as {
    mod: { _PostgresMainLoopOnce: (...args: unknown[]) => unknown };
    POSTGRES_MAIN_LONGJMP: unknown;
  };
  const { mod } = internals;
  const loopOnce = mod._PostgresMainLoopOnce;
  if (typeof loopOnce !== "function") throw new Error("PGlite's main loop is not where this server expects it");
  mod._PostgresMainLoopOnce = (...args: unknown[]) => {
    try {
      return loopOnce.apply(mod, args);
    } catch (error) {
      if ((error as { status?: unknown })?.status !== internals.POSTGRES_MAIN_LONGJMP) process.exit(abortedExitCode);
      throw error;
    }
  };
}

/** An error's own fields (PostgreSQL's `code`, `detail`, ...) as structured clone carries them. */
function fieldsOf(error: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (error && typeof error === "object") {
    for (const [name, value] of Object.entries(error)) {
      if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[name] = value;
    }
  }
  return fields;
}

port.on("message", async (request: ThreadRequest) => {
  let answer: ThreadAnswer;
  try {
    if (request.close) {
      await pglite.close();
      answer = { id: request.id, rows: [], affectedRows: undefined };
    } else {
      const sql = request.sql ?? "";
      const params = request.params ?? [];
      // Like node-postgres: without parameters, the simple protocol, which allows several statements (migrations).
      const result = params.length === 0 ? (await pglite.exec(sql)).at(-1) : await pglite.query(sql, params);
      answer = { id: request.id, rows: result?.rows ?? [], affectedRows: result?.affectedRows };
    }
  } catch (error) {
    answer = {
      id: request.id,
      error: { message: (error as Error)?.message ?? String(error), fields: fieldsOf(error) },
    };
  }
  port.postMessage(answer);
  // Closed: the thread ends by itself once the answer is sent, rather than being terminated (Worker.terminate() on a
  // thread that holds WebAssembly is a known source of crashes at teardown: nodejs/node#47748).
  if (request.close && !("error" in answer)) port.close();
});
port.postMessage({ ready: true });
