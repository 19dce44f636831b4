import { type ApiClient, createClient, type ErrorDto, type ValidationErrorDto } from "@novu-query/contract";
import { canonicalJson } from "@novu-query/contract/model";
import { Coverage } from "./coverage.js";
import { createSpecAjv, spec, validatorAt } from "./spec-validator.js";

export type Level = "shape" | "behaviour";

export interface Rule {
  /** Short id shown in the report, e.g. "search.walk". */
  id: string;
  /** The rule, as a sentence a reader can check the implementation against. */
  text: string;
  /** `shape` rules hold for the static mock too; `behaviour` rules need a real implementation with data. */
  level: Level;
  /** Needs `otherApiKey` (a second environment): without one the rule is reported as skipped. */
  needsOtherKey?: true;
  /** Sends a PATCH (and puts back what it changes): a read-only run (`readOnly`) skips it. */
  writes?: true;
  run(context: ConformanceContext): Promise<void>;
}

export interface ConformanceTarget {
  baseUrl: string;
  apiKey: string;
  /**
   * A key of another environment with data of its own: the isolation rules check that nothing of one environment can
   * be read, listed, counted or patched with the other's key. Without it they are reported as not run.
   */
  otherApiKey?: string | undefined;
  /**
   * The subscriber the PATCH rules change (and restore); default: the first whose every value the contract accepts
   * on write, so that all of them can be put back (conformance/write-target.ts).
   */
  subscriberId?: string | undefined;
  /** Sends no PATCH at all: the rules that write are reported as not run. */
  readOnly?: boolean | undefined;
  /** At most this many requests a second (default 50); 0 sends them as fast as they are answered. */
  requestsPerSecond?: number | undefined;
  /**
   * How many subscribers and notifications the oracle reads (default 2,000 each): a larger environment is checked on
   * a window of this many rows, and the report says so.
   */
  readLimit?: number | undefined;
  /** Seeds the choice of generated queries (default 1), so that a failing run can be repeated as it was. */
  seed?: number | undefined;
  /** How many seeds the generated queries are drawn with, from `seed` on (default 3): one seed may miss an edge. */
  seeds?: number | undefined;
}

/** A 429's `Retry-After` is waited out this many times for one request, each wait at most 60 s. */
const rateLimitRetries = 5;

const ajv = createSpecAjv();

/** A rule that does not hold. Plain `Error` underneath, so the suite also runs in a browser (no `node:assert`). */
export class RuleFailure extends Error {
  override name = "RuleFailure";
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new RuleFailure(message);
}

/**
 * Checks that two values are equal as JSON (the order of an object's keys aside, as jsonb keeps its own); the failure
 * names the first field that differs.
 */
export function checkEqual<T>(actual: T, expected: T, what: string): void {
  if (canonicalJson(actual) === canonicalJson(expected)) return;
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  if (isObject(actual) && isObject(expected)) {
    for (const field of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const [e, a] = [canonicalJson(expected[field]), canonicalJson(actual[field])];
      if (e !== a) throw new RuleFailure(`${what}: ${field} expected ${e.slice(0, 200)}, got ${a.slice(0, 200)}`);
    }
  }
  const [e, a] = [canonicalJson(expected), canonicalJson(actual)];
  throw new RuleFailure(`${what}: expected ${e.slice(0, 300)}, got ${a.slice(0, 300)}`);
}

/** What every rule gets: the typed client, raw HTTP for what the client cannot send, and schema checks. */
export class ConformanceContext {
  readonly target: ConformanceTarget;
  readonly client: ApiClient;
  /** The typed client with the other environment's key (`otherApiKey`), when there is one. */
  readonly otherClient: ApiClient | undefined;
  /** The operations seen answering with success, through the client or `raw`. */
  readonly coverage = new Coverage();
  /** Requests sent, and the time spent waiting out 429s. */
  readonly traffic = { requests: 0, rateLimitedMs: 0 };
  /** What rules learnt and later rules reuse (the oracle's reading of the data), by name. */
  readonly memo = new Map<string, unknown>();
  private nextSlot = 0;

  constructor(target: ConformanceTarget) {
    this.target = target;
    const clientWith = (apiKey: string) =>
      createClient({ baseUrl: target.baseUrl, apiKey, fetch: (request) => this.send(request) });
    this.client = clientWith(target.apiKey);
    this.otherClient = target.otherApiKey ? clientWith(target.otherApiKey) : undefined;
  }

  /** What the rule running now wants the report to say beside its result (a window it checked, say). */
  readonly notes: string[] = [];

  note(text: string): void {
    this.notes.push(text);
  }

  /** Waits for the request's turn at the configured pace. */
  private async pace(): Promise<void> {
    const perSecond = this.target.requestsPerSecond ?? 50;
    if (perSecond <= 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + 1000 / perSecond;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  }

  /** Sends a request at the pace, waits out a 429's `Retry-After` and sends it again, and records what it answered. */
  private async send(request: Request): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      await this.pace();
      this.traffic.requests += 1;
      const response = await globalThis.fetch(request.clone());
      const retryAfter = Number(response.headers.get("retry-after"));
      if (response.status === 429 && attempt < rateLimitRetries && Number.isFinite(retryAfter)) {
        await response.arrayBuffer();
        const waitMs = Math.min(60, Math.max(retryAfter, 0.1)) * 1000;
        this.traffic.rateLimitedMs += waitMs;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        continue;
      }
      this.coverage.record(request.method, request.url, this.target.baseUrl, response.status);
      return response;
    }
  }

  /** A raw request; `authorization: null` sends none, a string sends it as given. */
  raw(path: string, init: RequestInit & { authorization?: string | null } = {}): Promise<Response> {
    const { authorization = `ApiKey ${this.target.apiKey}`, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (authorization !== null) headers.set("authorization", authorization);
    const url = this.target.baseUrl.replace(/\/+$/, "") + path;
    return this.send(new Request(url, { ...rest, headers }));
  }

  /** The `message` of one of the spec's named error examples, e.g. "BadRequestBothCursors": the text to expect. */
  exampleMessage(name: string): string {
    const example = (spec as { components: { examples: Record<string, { value?: { message?: unknown } }> } }).components
      .examples[name];
    const message = example?.value?.message;
    if (typeof message !== "string") throw new Error(`the spec has no error example named ${name}`);
    return message;
  }

  /** Checks a value against a schema of the bundled spec, e.g. "Subscriber". */
  matchesSchema(value: unknown, schema: string): void {
    const validate = validatorAt(ajv, `/components/schemas/${schema}`);
    if (!validate(value)) {
      throw new RuleFailure(`body does not match ${schema}: ${ajv.errorsText(validate.errors)}`);
    }
  }

  /** Checks an error answer: its status, JSON content type, the error schema, and (optionally) the message. */
  async expectError(
    response: Response,
    status: number,
    message?: string,
  ): Promise<ErrorDto & Partial<ValidationErrorDto>> {
    const text = await response.text();
    check(response.status === status, `expected status ${status}, got ${response.status}: ${text.slice(0, 300)}`);
    check(/^application\/json/.test(response.headers.get("content-type") ?? ""), "error answers are application/json");
    const body = JSON.parse(text) as ErrorDto & Partial<ValidationErrorDto>;
    this.matchesSchema(body, status === 422 ? "ValidationErrorDto" : "ErrorDto");
    check(body.statusCode === status, `statusCode ${body.statusCode} does not repeat the HTTP status ${status}`);
    if (message !== undefined) checkEqual(body.message, message, "message");
    return body;
  }
}
