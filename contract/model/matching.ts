/** How the filters compare text: the one definition each of the contract's text predicates. */
import type { Subscriber } from "../../generated/schema.js";

/** Whether `value` contains `term`, ignoring case; an absent term matches everything, an absent value only "". */
export function containsIgnoringCase(value: string | null | undefined, term: string | undefined): boolean {
  return term === undefined || (value ?? "").toLowerCase().includes(term.toLowerCase());
}

/** What `name` searches: the first name, a space, the last name (an absent part is empty). */
export function searchedName(subscriber: Pick<Subscriber, "firstName" | "lastName">): string {
  return `${subscriber.firstName ?? ""} ${subscriber.lastName ?? ""}`;
}

// Stryker disable all: the conformance suite's inputs (the forms of a term it sends), which no implementation runs.
/** The other forms of a term a client may send: its case flipped whole, padded, a prefix of it, its first letter. */
export function termVariants(term: string): string[] {
  const chars = [...term];
  return [
    term.toUpperCase(),
    term.toLowerCase(),
    ` ${term} `,
    chars.slice(0, Math.max(1, chars.length - 1)).join(""),
    chars.slice(0, 1).join(""),
  ].filter((variant) => variant !== term && variant !== "");
}
// Stryker restore all
