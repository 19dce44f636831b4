/**
 * What the skeleton logs through: a failed request (with its errorId), a rate limit that could not be applied, an
 * operation answering 501 for want of a handler. A pino logger fits as it is; without one, JSON lines go to stderr.
 */
export interface Logger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** An Error as JSON can show it (JSON.stringify of an Error is `{}`). */
function serialisable(fields: object): object {
  const err = (fields as { err?: unknown }).err;
  if (!(err instanceof Error)) return fields;
  return { ...fields, err: { type: err.name, message: err.message, stack: err.stack } };
}

function line(level: string, fields: object, message: string): void {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), msg: message, ...serialisable(fields) })}\n`);
}

/** The default: warnings and errors as JSON lines on stderr; nothing for info. */
export const stderrLogger: Logger = {
  info: () => {},
  warn: (fields, message) => line("warn", fields, message),
  error: (fields, message) => line("error", fields, message),
};

/** The request's own logger when the app attached one (`req.log`, as pino-http and the reference server do), else the given one. */
export function loggerFor(req: object, fallback: Logger): Logger {
  const attached = (req as { log?: Partial<Logger> }).log;
  return typeof attached?.error === "function" && typeof attached.warn === "function" ? (attached as Logger) : fallback;
}
