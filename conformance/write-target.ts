/**
 * Whom the PATCH rules change, and how they leave them. A run must never harm the data it is pointed at: the rules
 * change one subscriber and put back exactly what they changed. Putting a value back is a PATCH, and the contract
 * refuses some values a service may hold (an e-mail with a `%` in it, stored before the rules tightened): such a field
 * could be cleared but never restored. So the target is a subscriber whose every writable value the contract accepts
 * on write; when there is none, the one whose fewest are refused, and the rules leave those fields alone (they are
 * never sent, so a correct service is never failed for them). The report says which.
 */
import type { PatchSubscriberRequest, Subscriber } from "@novu-query/contract";
import { declaredInputs } from "@novu-query/contract/model";
import { type ConformanceContext, check, RuleFailure } from "./context.js";
import { snapshotOf } from "./oracle.js";
import { createSpecAjv, validatorAt } from "./spec-validator.js";

export type WritableField = keyof PatchSubscriberRequest;

/** The fields a PATCH writes, as the contract declares them. */
export const writableFields = declaredInputs("patchSubscriber")
  .filter(([place]) => place === "body")
  .map(([, name]) => name as WritableField);

export interface WriteTarget {
  subscriber: Subscriber;
  /** The fields whose stored values a PATCH can put back: the only ones the rules change. */
  fields: WritableField[];
  /** The fields left alone, with why. */
  untouched: string[];
}

const validateBody = validatorAt(createSpecAjv(), "/components/schemas/PatchSubscriberRequest");
const bodyFields = Object.fromEntries(
  declaredInputs("patchSubscriber")
    .filter(([place]) => place === "body")
    .map(([, name, input]) => [name, input]),
);

/** Why the contract would refuse this value on write, or undefined when a PATCH can send it (and put it back). */
export function refusedOnWrite(field: WritableField, value: unknown): string | undefined {
  if (!validateBody({ [field]: value })) return validateBody.errors?.[0]?.message ?? "refused";
  return (bodyFields[field] as { refuse?: (v: unknown) => string | undefined })?.refuse?.(value);
}

function targetOf(subscriber: Subscriber): WriteTarget {
  const fields: WritableField[] = [];
  const untouched: string[] = [];
  for (const field of writableFields) {
    const problem = refusedOnWrite(field, subscriber[field]);
    if (problem)
      untouched.push(`${field} (its stored value ${JSON.stringify(subscriber[field]).slice(0, 60)} ${problem})`);
    else fields.push(field);
  }
  return { subscriber, fields, untouched };
}

/**
 * The subscriber the PATCH rules change: `--subscriber`, else the first whose values can all be put back. In the
 * other environment (`otherApiKey`, for the isolation rules), always the latter.
 */
export async function writeTarget(context: ConformanceContext, which: "main" | "other" = "main"): Promise<WriteTarget> {
  const name = `write-target.${which}`;
  const kept = context.memo.get(name) as WriteTarget | undefined;
  if (kept) return kept;
  let target: WriteTarget;
  if (context.target.subscriberId && which === "main") {
    const { data, response } = await context.client.GET("/v2/subscribers", {
      params: { query: { subscriberId: context.target.subscriberId } },
    });
    const found = data?.data[0];
    check(
      response.status === 200 && found,
      `the subscriber ${context.target.subscriberId} (--subscriber) was not found`,
    );
    target = targetOf(found);
  } else {
    const { subscribers } = await snapshotOf(context, which);
    const candidates = subscribers.filter((s) => !s.deleted).map(targetOf);
    const best = candidates.sort((a, b) => a.untouched.length - b.untouched.length)[0];
    if (!best) throw new RuleFailure("the environment needs at least one subscriber for the PATCH rules");
    target = best;
  }
  context.memo.set(name, target);
  const how =
    target.untouched.length === 0
      ? "every field restorable"
      : `leaving ${target.untouched.join(", ")} alone: the contract refuses it on write, so it could not be put back`;
  const where = which === "main" ? "" : " of the other environment";
  context.note(`PATCH rules change ${target.subscriber.subscriberId}${where} and put it back (${how})`);
  return target;
}

/** A PATCH body of only the target's restorable fields. */
export function restorable(target: WriteTarget, body: PatchSubscriberRequest): PatchSubscriberRequest {
  return Object.fromEntries(
    Object.entries(body).filter(([field]) => target.fields.includes(field as WritableField)),
  ) as PatchSubscriberRequest;
}

/** The body that puts back what the target held in the fields given. */
export function restoreBody(
  target: WriteTarget,
  fields: readonly WritableField[] = target.fields,
): PatchSubscriberRequest {
  return Object.fromEntries(
    fields.filter((field) => target.fields.includes(field)).map((field) => [field, target.subscriber[field]]),
  ) as PatchSubscriberRequest;
}
