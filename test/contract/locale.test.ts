import fc from "fast-check";
import validator from "validator";
import { describe, expect, it } from "vitest";
import { fuzzParameters } from "../support/fuzz-budget.js";
import { type JsonObject, spec } from "../support/spec.js";

// Novu validates `locale` with class-validator's IsLocale, which is validator.js's isLocale: the contract's pattern
// must accept exactly what it accepts, so that no request Novu takes is refused here, and the reverse.
const schemas = (spec.components as JsonObject).schemas as Record<string, JsonObject>;
const properties = (schemas.PatchSubscriberRequest as JsonObject).properties as Record<string, { pattern: string }>;
const locale = properties.locale as { pattern: string };
const pattern = new RegExp(locale.pattern, "u");

describe("PatchSubscriberRequest.locale", () => {
  it.each([
    "en",
    "en-US",
    "en_US",
    "zh-Hant-TW",
    "zh_Hant_TW",
    "pt_BR",
    "de-DE-1996",
    "sl-rozaj",
    "en-US-u-ca-gregory",
    "en-a-bbb-x-a-ccc",
    "x-private",
    "i-klingon",
    "en-GB-oed",
    "es-419",
    "english-language",
  ])("accepts %s, as Novu does", (value) => {
    expect(validator.isLocale(value)).toBe(true);
    expect(pattern.test(value)).toBe(true);
  });

  it.each(["", "e", "toolonglanguage", "en-", "en__US", "en US", "123", "en-US-", "-en", "en-U"])(
    "refuses %j, as Novu does",
    (value) => {
      expect(validator.isLocale(value)).toBe(false);
      expect(pattern.test(value)).toBe(false);
    },
  );

  it("agrees with validator.js isLocale on random tags", () => {
    const subtag = fc.stringMatching(/^[A-Za-z0-9]{1,9}$/);
    const tag = fc
      .tuple(subtag, fc.array(fc.tuple(fc.constantFrom("-", "_"), subtag), { maxLength: 5 }))
      .map(([first, rest]) => first + rest.map(([separator, part]) => separator + part).join(""));
    fc.assert(
      fc.property(tag, (value) => pattern.test(value) === validator.isLocale(value)),
      fuzzParameters(20_000),
    );
  });
});
