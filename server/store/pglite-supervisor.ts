/**
 * PGlite kept answering when its PostgreSQL gives up. A PANIC (a WAL segment that cannot be written on a full disk)
 * or a FATAL ends a real PostgreSQL backend; in PGlite it leaves the WebAssembly instance spinning, and every later
 * statement, `/healthz` included, waited forever (measured: the thread at 40-100% CPU, SIGTERM ignored, freeing space
 * no help). Here the instance that panicked is stopped at once and the directory opened again, as PostgreSQL's
 * postmaster restarts after a crash: recovery replays the WAL, so every committed (acknowledged) write is kept.
 * Until it has reopened, every statement fails at once with a coded error (53100 while the disk is full, else 57P03)
 * that the server answers 503 with `Retry-After`; a reopen that fails (the disk still full) is tried again every
 * second, so that the server recovers by itself when space returns.
 *
 * A unit of work (a transaction) holds one generation: once the instance it began on is gone, its later statements
 * fail rather than run, outside any transaction, on the reopened one.
 */
import type { PGliteLike, PGliteThread } from "./pglite-worker.js";

export interface SupervisorOptions extends Partial<SupervisorEvents> {
  /**
   * Whether the disk under the database is (nearly) full. A PANIC on a full disk ends the thread before its message
   * comes back, so a lost instance is put down to a full disk when this says so.
   */
  diskFull?: () => boolean;
}

export interface SupervisorEvents {
  /** The instance stopped answering (a PANIC or FATAL, or its thread ended) and is being reopened. */
  lost(error: Error): void;
  /** An attempt to open it again failed (`attempt` counts from 1 for each loss); it is tried again in a second. */
  reopenFailed(error: Error, attempt: number): void;
  /** It answers again. */
  reopened(afterMs: number): void;
}

const retryEveryMs = 1000;
/** How long one attempt to open may take (recovery of a large WAL included) before it is stopped and tried again. */
const openTimeoutMs = 120_000;
/** How long `close` waits for the instance to close cleanly before stopping it. */
const closeTimeoutMs = 5000;

/** Whether an error means the instance that raised it is gone. */
function endsInstance(error: unknown): boolean {
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  return severity === "PANIC" || severity === "FATAL" || code === "57P02";
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class PGliteSupervisor {
  /** Bumped each time the instance is lost: a unit of work begun on an earlier one may not go on. */
  generation = 0;
  private current: PGliteThread | undefined;
  /** Why there is no instance now (a coded error every statement is refused with). */
  private down: Error | undefined;
  private lostAt = 0;
  private attempts = 0;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly open: () => Promise<PGliteThread>;
  private readonly options: SupervisorOptions;

  private constructor(open: () => Promise<PGliteThread>, first: PGliteThread, options: SupervisorOptions) {
    this.open = open;
    this.current = first;
    this.options = options;
  }

  static async start(open: () => Promise<PGliteThread>, options: SupervisorOptions = {}) {
    return new PGliteSupervisor(open, await open(), options);
  }

  /** The instance of a generation, or the error its statements are refused with. */
  private instance(generation: number): PGliteLike {
    if (generation !== this.generation) {
      // Still down: why; else it was reopened under this transaction, which was never committed.
      throw (
        this.down ?? codedError("the database was reopened while this transaction ran; it was not committed", "57P01")
      );
    }
    if (!this.current) throw this.down ?? codedError("the database is closed", "57P03");
    return this.current;
  }

  /** Runs one call on the instance of `generation`; an error that ends the instance starts its reopening. */
  async run<T>(generation: number, call: (pglite: PGliteLike) => Promise<T>): Promise<T> {
    const pglite = this.instance(generation);
    try {
      return await call(pglite);
    } catch (error) {
      if (!endsInstance(error)) throw error;
      if (pglite === this.current) this.lose(error as Error);
      // What it was lost to (a full disk, say), rather than how the thread ended.
      throw this.down ?? error;
    }
  }

  private lose(error: Error): void {
    const dead = this.current;
    this.current = undefined;
    this.generation++;
    this.lostAt = Date.now();
    this.attempts = 0;
    const storageFull =
      (error as { code?: unknown }).code === "53100" ||
      /No space left/.test(error.message) ||
      this.options.diskFull?.() === true;
    this.down = storageFull
      ? codedError(`the database's disk is full: ${error.message}`, "53100")
      : codedError(`the database is being reopened after: ${error.message}`, "57P03");
    this.options.lost?.(error);
    void dead?.terminate().catch(() => {});
    this.scheduleReopen(0);
  }

  private scheduleReopen(delayMs: number): void {
    if (this.closed) return;
    this.retry = setTimeout(() => void this.reopen(), delayMs);
    this.retry.unref();
  }

  private async reopen(): Promise<void> {
    let attempt: Promise<PGliteThread> | undefined;
    this.attempts++;
    try {
      attempt = this.open();
      const opened = await withTimeout(attempt, openTimeoutMs, () => new Error("opening the database timed out"));
      if (this.closed) return void (await opened.close());
      this.current = opened;
      this.down = undefined;
      this.options.reopened?.(Date.now() - this.lostAt);
    } catch (error) {
      // Still failing (the disk still full): a thread that started is stopped, and it is tried again.
      void attempt?.then((late) => late.terminate()).catch(() => {});
      this.options.reopenFailed?.(error as Error, this.attempts);
      this.scheduleReopen(retryEveryMs);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const pglite = this.current;
    this.current = undefined;
    this.down = codedError("the database is closed", "57P03");
    if (!pglite) return;
    try {
      await withTimeout(pglite.close(), closeTimeoutMs, () => new Error("closing the database timed out"));
    } catch {
      await pglite.terminate();
    }
  }
}
