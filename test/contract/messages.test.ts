import { messages } from "@novu-query/express";
import { describe, expect, it } from "vitest";
import { type JsonObject, spec } from "../support/spec.js";

const placeholder = "\u0001";

/** Each catalogue entry as a pattern: a fixed text as itself, a template with any text where its arguments go. */
// An argument is one word (a method, a path, a key, an id): wide enough for the examples, narrow enough to mean something.
const patterns = Object.entries(messages).map(([name, message]) => {
  const text =
    typeof message === "string" ? message : (message as (...args: string[]) => string)(placeholder, placeholder);
  const source = text
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .split(placeholder)
    .join("\\S+");
  return { name, pattern: new RegExp(`^${source}$`, "s") };
});

const examples = Object.entries((spec.components as JsonObject).examples as Record<string, { value?: unknown }>)
  .map(([name, example]) => [name, (example.value as { message?: unknown } | undefined)?.message] as const)
  .filter((entry): entry is readonly [string, string] => typeof entry[1] === "string");

describe("the messages of the spec's error examples", () => {
  it("are there to check (the spec has error examples)", () => {
    expect(examples.length).toBeGreaterThan(15);
  });

  it.each(examples)("%s says what the server can say", (_name, message) => {
    expect(patterns.filter(({ pattern }) => pattern.test(message)).map(({ name }) => name)).not.toEqual([]);
  });

  it("would catch a text the server never sends", () => {
    expect(patterns.some(({ pattern }) => pattern.test('Cannot use both "after" and "before" cursors'))).toBe(false);
  });
});
