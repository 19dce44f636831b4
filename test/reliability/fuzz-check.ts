import { expect } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import { type OperationId, operationTable } from "../../generated/operations.js";
import { findOperation, type JsonObject, pointerKey } from "../support/spec.js";

const ajv = createSpecAjv();

export { fuzzRuns } from "../support/fuzz-budget.js";

function schemaPointer(operationId: OperationId, status: number): string {
  const { method, path, operation } = findOperation(operationId);
  const response = (operation.responses as JsonObject)[String(status)] as JsonObject;
  const base =
    typeof response.$ref === "string"
      ? response.$ref.slice(1)
      : `/paths/${pointerKey(path)}/${method}/responses/${status}`;
  return `${base}/content/application~1json/schema`;
}

export interface Checked {
  status: number;
  body: JsonObject;
}

/** Every fuzzed answer: below 500, a status the operation declares, JSON, and a body valid for that status. */
export async function checkAnswer(
  operationId: OperationId,
  response: Response,
  allowed: readonly number[],
): Promise<Checked> {
  const text = await response.text();
  const context = `${operationId} answered ${response.status}: ${text.slice(0, 400)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(operationTable[operationId].statuses as readonly number[], context).toContain(response.status);
  expect(allowed, context).toContain(response.status);
  expect(response.headers.get("content-type"), context).toMatch(/^application\/json/);
  const body = JSON.parse(text) as JsonObject;
  const validate = validatorAt(ajv, schemaPointer(operationId, response.status));
  expect(validate(body), `${context}\n${ajv.errorsText(validate.errors)}`).toBe(true);
  return { status: response.status, body };
}

/** The answers a request may get, from what was wrong with it (auth first, as the server checks it first). */
export function allowedStatuses(
  input: { authValid: boolean; keyValid: boolean; inputValid: boolean },
  whenValid: number[],
): number[] {
  if (!input.authValid) return [401, 414];
  if (!input.inputValid || !input.keyValid) return [400, 413, 414, 415, 422];
  return whenValid;
}

/** The headers of a fuzzed request: its (maybe broken) Authorization and (maybe overlong) idempotency key. */
export function fuzzHeaders(
  auth: { header: string | undefined },
  key: { value: string | undefined },
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (auth.header !== undefined) headers.authorization = auth.header;
  if (key.value) headers["idempotency-key"] = key.value;
  return headers;
}

/**
 * The statuses a property's runs were answered with: each kind of request (valid, invalid, unauthenticated, ...) must
 * have been sent and answered as that kind is. A property also gives fast-check one example of each kind (`examples`):
 * some are rare draws (a PATCH of a subscriber that does not exist, about one in 170), which a small FUZZ_RUNS, or an
 * unlucky seed, would otherwise miss and fail for.
 */
export class StatusTally {
  private readonly seen = new Set<number>();

  add(status: number): void {
    this.seen.add(status);
  }

  expectSaw(statuses: number[], what: string): void {
    expect(
      statuses.filter((status) => !this.seen.has(status)),
      `statuses no run of ${what} was answered with`,
    ).toEqual([]);
  }
}
