/**
 * `createClient({ validateAnswers })`: each success answer checked against the zod schema of the operation's answer
 * (generated/zod.ts, from the spec), every field that breaks it named. Its own entry, so that an app that does not
 * validate answers bundles no zod.
 */
import { operationIds, operationTable } from "../generated/operations.js";
import { successAnswers } from "../generated/zod.js";
import type { AnswerMismatch } from "./api-error.js";
import type { AnswerValidator } from "./index.js";

/** `["data", 0, "createdAt"]` -> `data[0].createdAt`. */
function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, segment) =>
      typeof segment === "number" ? `${text}[${segment}]` : text ? `${text}.${String(segment)}` : String(segment),
    "",
  );
}

export const validateAnswers: AnswerValidator = {
  operationAt(method, schemaPath) {
    const lower = method.toLowerCase();
    return operationIds.find((id) => operationTable[id].method === lower && operationTable[id].path === schemaPath);
  },
  check(operationId, body) {
    const result = successAnswers[operationId].safeParse(body);
    if (result.success) return [];
    return result.error.issues.map((issue): AnswerMismatch => ({ path: pathText(issue.path), message: issue.message }));
  },
};
