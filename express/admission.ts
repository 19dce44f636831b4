/**
 * Admission control: how many requests of this process may run their handlers at once, and how many may wait for a
 * turn. Beyond that a request is answered 503 with `Retry-After` at once instead of joining an unbounded queue, in
 * which every request (cheap ones too) would wait behind the slow ones. Expensive requests (which ones, the app
 * says: `CostOf`) also need one of a few turns of their own, so that a burst of them cannot take every connection.
 */
import type { OperationId } from "@novu-query/contract/operations";
import { ApiError } from "./errors.js";
import type { HandlerInput } from "./handler-types.js";
import { messages } from "./messages.js";

export interface LimiterOptions {
  /** Requests doing their work at once. */
  maxInFlight: number;
  /** Requests waiting for a turn; one more is refused at once. */
  maxQueue: number;
  /** The longest a request waits for a turn before it is refused. */
  maxWaitMs: number;
}

/** Seconds a refused client is told to wait. */
const retryAfterSeconds = 1;

export function overloaded(): ApiError {
  return new ApiError(503, messages.overloaded, { "Retry-After": String(retryAfterSeconds) });
}

/** A counting semaphore with a bounded, time-limited queue. */
export class Limiter {
  private inFlight = 0;
  private readonly waiting: { admit: () => void; timer: NodeJS.Timeout }[] = [];
  readonly options: LimiterOptions;

  constructor(options: LimiterOptions) {
    this.options = options;
  }

  /** Requests doing their work, and requests waiting (for tests and the benchmark). */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.inFlight, queued: this.waiting.length };
  }

  /** Runs `work` in a turn; throws the 503 ApiError when there is no turn now, no room to wait, or the wait is over. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.options.maxInFlight) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxQueue) return Promise.reject(overloaded());
    return new Promise((resolve, reject) => {
      const entry = {
        admit: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(overloaded());
        }, this.options.maxWaitMs),
      };
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The turn passes straight to the next waiting request.
    if (next) next.admit();
    else this.inFlight -= 1;
  }
}

export type Cost = "cheap" | "expensive";

/** Which requests are expensive: those that need one of the few expensive turns first. */
export type CostOf = <K extends OperationId>(id: K, input: HandlerInput<K>) => Cost;

export interface AdmissionOptions {
  all: LimiterOptions;
  expensive: LimiterOptions;
}

/** Every request takes a turn of `all`; an expensive one first takes a turn of `expensive`. */
export class Admission {
  readonly all: Limiter;
  readonly expensive: Limiter;

  constructor(options: AdmissionOptions) {
    this.all = new Limiter(options.all);
    this.expensive = new Limiter(options.expensive);
  }

  run<T>(cost: Cost, work: () => Promise<T>): Promise<T> {
    return cost === "expensive" ? this.expensive.run(() => this.all.run(work)) : this.all.run(work);
  }
}
