/**
 * What `/healthz` and `/readyz` say, and the one log line of a full disk. `/healthz`: the process answers and so does
 * its database; `/readyz`: that, and the server is not stopping (after SIGTERM a load balancer should send no more).
 * A ping that does not answer within a few seconds is as bad as one that fails: a probe never hangs. A full disk does
 * not stop reads, so a ping alone would call it healthy: a write refused for lack of space makes the database "storage
 * full" until a write succeeds, or none has failed for `storageFullForMs` (writes are still tried meanwhile, so the
 * server recovers by itself once space is freed).
 */
import type { Logger } from "pino";
import { databaseTrouble } from "./database-errors.js";

export type HealthState =
  | { ok: true }
  | { ok: false; reason: "database unavailable" | "storage full" | "stopping"; detail: string };

const pingTimeoutMs = 2000;
const storageFullForMs = 10_000;

export class Health {
  /** Set when the server begins to stop: `/readyz` says so from then on. */
  stopping = false;
  private fullSince: number | undefined;
  private lastFullAt = 0;
  private readonly ping: () => Promise<void>;
  private readonly logger: Logger;
  /** Where the data is, for the log line of a full disk (a data directory, a masked URL). */
  private readonly location: string;
  private readonly now: () => number;

  constructor(ping: () => Promise<void>, logger: Logger, location: string, now: () => number = Date.now) {
    this.ping = ping;
    this.logger = logger;
    this.location = location;
    this.now = now;
  }

  /** Told of every database error a request met; a full disk is logged once, when it starts. */
  noteError(error: unknown): void {
    if (databaseTrouble(error) !== "storage-full") return;
    this.lastFullAt = this.now();
    if (this.fullSince !== undefined) return;
    this.fullSince = this.lastFullAt;
    this.logger.error(
      { code: "ENOSPC", location: this.location, err: error },
      `the disk under the database (${this.location}) is full: writes are answered 503 until space is freed`,
    );
  }

  /** Told of every write the database acknowledged: space is back, if it was short. */
  noteWrite(): void {
    if (this.fullSince !== undefined) this.tookWritesAgain("a write succeeded", this.fullSince, this.now());
  }

  private storageFull(): boolean {
    if (this.fullSince === undefined) return false;
    if (this.now() - this.lastFullAt < storageFullForMs) return true;
    this.tookWritesAgain("no write has failed for lack of space for 10 s", this.fullSince, this.lastFullAt);
    return false;
  }

  /** Logs the end of a full disk, which lasted from `since` to `until` (the last refused write, or the first write). */
  private tookWritesAgain(why: string, since: number, until: number): void {
    this.logger.info({ location: this.location, fullForMs: until - since }, `${why}: the database takes writes again`);
    this.fullSince = undefined;
  }

  /** Whether the server can take requests: as `check`, and not stopping. */
  async ready(): Promise<HealthState> {
    if (this.stopping) return { ok: false, reason: "stopping", detail: "the server is shutting down" };
    return this.check();
  }

  /** Whether the process and its database answer, and the database takes writes. */
  async check(): Promise<HealthState> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.ping(),
        new Promise((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the database did not answer within ${pingTimeoutMs} ms`)),
            pingTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      this.noteError(error);
      const reason = databaseTrouble(error) === "storage-full" ? "storage full" : "database unavailable";
      return { ok: false, reason, detail: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
    if (this.storageFull())
      return { ok: false, reason: "storage full", detail: `writes fail for lack of space in ${this.location}` };
    return { ok: true };
  }
}
