/**
 * A query key the contract does not have, as a 422 entry: a bracketed one (`email[0]`, `channels[]`,
 * `constructor[x]`) of a known parameter says how to send it (the contract's lists are the parameter repeated, and it
 * has no object parameters); any other is not a known query parameter. Every value sent under the key is kept.
 */
import { messages } from "./messages.js";

/** Whether a query key has brackets (`email[0]`, `__proto__[email]`). */
export function isBracketedKey(key: string): boolean {
  return /[[\]]/.test(key);
}

export function unknownQueryKey(
  key: string,
  values: readonly string[],
  isKnown: (name: string) => boolean,
): { messages: string[]; value: string | string[] } {
  const bracket = key.search(/[[\]]/);
  const name = bracket < 0 ? undefined : key.slice(0, bracket);
  const message =
    name !== undefined && isKnown(name)
      ? messages.bracketedParameter(name, ...values)
      : "is not a known query parameter";
  return { messages: [message], value: values.length === 1 ? (values[0] as string) : [...values] };
}
