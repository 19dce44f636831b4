/** The exit code of a PGlite thread whose PostgreSQL aborted (a PANIC): pglite-thread.ts ends with it, pglite-worker.ts reads it. */
export const abortedExitCode = 70;
