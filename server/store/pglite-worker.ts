/**
 * PGlite on a worker thread (pglite-thread.ts), with the two calls PGlitePool makes: `exec` for statements without
 * parameters, `query` with them, and `close`. The server's thread only waits for answers, so it keeps accepting and
 * refusing requests while a query runs. An error comes back as an Error with PostgreSQL's fields (`code`, ...).
 */
import { Worker } from "node:worker_threads";
import { threadModule } from "../thread-module.js";
import { abortedExitCode } from "./pglite-exit.js";
import type { ThreadAnswer, ThreadRequest } from "./pglite-thread.js";

export interface PGliteLike {
  exec(sql: string): Promise<{ rows: unknown[]; affectedRows?: number | undefined }[]>;
  query<R>(sql: string, params: unknown[]): Promise<{ rows: R[]; affectedRows?: number | undefined }>;
  close(): Promise<void>;
}

/** A PGlite on a worker thread, which can also be stopped without its answer (when it no longer answers). */
export interface PGliteThread extends PGliteLike {
  /** Stops the thread at once, whatever it is doing: the database is left as a kill -9 leaves it. */
  terminate(): Promise<void>;
}

/** The thread ended or failed: its database is gone until it is opened again (SQLSTATE 57P02, crash shutdown). */
function threadEnded(message: string): Error {
  return Object.assign(new Error(message), { code: "57P02" });
}

export async function startPGliteWorker(dataDir: string | undefined, template?: string): Promise<PGliteThread> {
  const worker = new Worker(await threadModule(import.meta.url, "pglite-thread"), {
    workerData: { dataDir, template },
  });
  const waiting = new Map<number, { resolve: (answer: ThreadAnswer) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  worker.on("error", (error) => failAll(threadEnded(`the PGlite thread failed: ${error.message}`)));
  worker.on("exit", (code) =>
    failAll(
      threadEnded(
        code === abortedExitCode
          ? "PostgreSQL aborted (a PANIC) and its thread ended"
          : `the PGlite thread exited (${code})`,
      ),
    ),
  );
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(threadEnded(`the PGlite thread exited (${code}) while opening the database`));
    const onMessage = (message: { ready?: true }) => {
      if (!message.ready) return;
      worker.off("message", onMessage);
      worker.off("error", reject);
      worker.off("exit", onExit);
      resolve();
    };
    worker.on("message", onMessage);
    worker.once("error", reject);
    worker.once("exit", onExit);
  });
  worker.on("message", (answer: ThreadAnswer) => {
    const pending = waiting.get(answer.id);
    if (!pending) return;
    waiting.delete(answer.id);
    pending.resolve(answer);
  });

  const ask = (request: Omit<ThreadRequest, "id">) =>
    new Promise<ThreadAnswer>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    }).then((answer) => {
      if ("error" in answer) throw Object.assign(new Error(answer.error.message), answer.error.fields);
      return answer;
    });

  return {
    async exec(sql) {
      const answer = await ask({ sql, params: [] });
      return [{ rows: answer.rows, affectedRows: answer.affectedRows }];
    },
    async query<R>(sql: string, params: unknown[]) {
      const answer = await ask({ sql, params });
      return { rows: answer.rows as R[], affectedRows: answer.affectedRows };
    },
    async close() {
      const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      await ask({ close: true });
      // The thread ends by itself after closing; terminated only if it has not within a second.
      const late = setTimeout(() => void worker.terminate(), 1000);
      await ended;
      clearTimeout(late);
    },
    async terminate() {
      worker.removeAllListeners("exit");
      failAll(threadEnded("the PGlite thread was stopped"));
      await worker.terminate();
    },
  };
}
