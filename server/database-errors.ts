/**
 * What a database error means for the request that met it, in one place: a cancelled statement, a database that
 * cannot be reached, and a full disk are each a 503 with `Retry-After` that says so; anything else is left to the
 * error middleware (a 500 with an errorId). Both drivers report these the same way: PostgreSQL's SQLSTATE, node's
 * socket errors, and the PGlite supervisor's own (server/store/pglite-supervisor.ts).
 */
import { ApiError, messages } from "@novu-query/express";

export type DatabaseTrouble = "cancelled" | "unavailable" | "storage-full";

/** SQLSTATEs of a connection the server ended or cannot give (class 08, admin/crash shutdown, cannot connect now, too many connections). */
const unavailableStates = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"]);
/** node's errors for a socket that could not be opened or was cut. */
const socketCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND"]);
/** node-postgres's messages for a connection that ended under a query (it gives them no code). */
const endedConnection = /^Connection terminated|not queryable|Connection ended|timeout exceeded when trying to connect/;

/** What kind of database trouble an error is, or undefined for any other error. */
export function databaseTrouble(error: unknown): DatabaseTrouble | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === "57014") return "cancelled";
  // disk_full (53100): a table or a WAL segment that could not grow.
  if (code === "53100" || code === "ENOSPC") return "storage-full";
  if (typeof code === "string" && (unavailableStates.has(code) || socketCodes.has(code))) return "unavailable";
  if (typeof message === "string" && endedConnection.test(message)) return "unavailable";
  return undefined;
}

/** Seconds a client waits before retrying after each kind of trouble. */
function retryAfterSeconds(trouble: DatabaseTrouble, statementTimeoutMs: number): number {
  if (trouble === "cancelled") return Math.max(1, Math.ceil((statementTimeoutMs || 1000) / 1000));
  return trouble === "storage-full" ? 10 : 2;
}

/**
 * The 503 for a database error of one of these kinds, else undefined. A cancelled statement rolled back whatever the
 * request had done (a PATCH runs in one transaction with its idempotency record), so a retry starts afresh; after a
 * lost connection a PATCH may or may not have committed, which a retry with the same idempotency key settles.
 */
export function databaseErrorAnswer(error: unknown, statementTimeoutMs: number): ApiError | undefined {
  const trouble = databaseTrouble(error);
  if (!trouble) return undefined;
  const message =
    trouble === "cancelled"
      ? messages.statementTimeout(statementTimeoutMs)
      : trouble === "storage-full"
        ? messages.storageFull
        : messages.databaseUnavailable;
  return new ApiError(503, message, { "Retry-After": String(retryAfterSeconds(trouble, statementTimeoutMs)) });
}
