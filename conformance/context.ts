import { type ApiClient, createClient, type ErrorDto, type ValidationErrorDto } from "@novu-query/contract";
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
  run(context: ConformanceContext): Promise<void>;
}

export interface ConformanceTarget {
  baseUrl: string;
  apiKey: string;
  /** The subscriber the PATCH rules change (and restore); default: the first one a search returns. */
  subscriberId?: string | undefined;
}

const ajv = createSpecAjv();

/** A rule that does not hold. Plain `Error` underneath, so the suite also runs in a browser (no `node:assert`). */
export class RuleFailure extends Error {
  override name = "RuleFailure";
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new RuleFailure(message);
}

export function checkEqual<T>(actual: T, expected: T, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new RuleFailure(`${what}: expected ${e.slice(0, 300)}, got ${a.slice(0, 300)}`);
}

/** What every rule gets: the typed client, raw HTTP for what the client cannot send, and schema checks. */
export class ConformanceContext {
  readonly target: ConformanceTarget;
  readonly client: ApiClient;
  /** The operations seen answering with success, through the client or `raw`. */
  readonly coverage = new Coverage();

  constructor(target: ConformanceTarget) {
    this.target = target;
    this.client = createClient({
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      fetch: (request) => this.observed(request.method, request.url, globalThis.fetch(request)),
    });
  }

  private async observed(method: string, url: string, answer: Promise<Response>): Promise<Response> {
    const response = await answer;
    this.coverage.record(method, url, this.target.baseUrl, response.status);
    return response;
  }

  /** A raw request; `authorization: null` sends none, a string sends it as given. */
  raw(path: string, init: RequestInit & { authorization?: string | null } = {}): Promise<Response> {
    const { authorization = `ApiKey ${this.target.apiKey}`, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (authorization !== null) headers.set("authorization", authorization);
    const url = this.target.baseUrl.replace(/\/+$/, "") + path;
    return this.observed(rest.method ?? "GET", url, fetch(url, { ...rest, headers }));
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
