/**
 * The instants a store holds, as the model clamps a date-time to them (contract/model/date-time.ts): the years 1 to
 * 9999, which PostgreSQL reads, so that a window or a cursor's carried time outside them selects the same rows.
 */
import { dateTimeMilliseconds, listWindow, storableInstant } from "@novu-query/contract/model";
import { describe, expect, it } from "vitest";

const at = (text: string) => storableInstant(dateTimeMilliseconds(text)).toISOString();

describe("storableInstant", () => {
  it("keeps every instant of the years 1 to 9999, the nineteenth century's too", () => {
    expect(at("1850-06-01T12:00:00Z")).toBe("1850-06-01T12:00:00.000Z");
    expect(at("0001-01-01T00:00:00Z")).toBe("0001-01-01T00:00:00.000Z");
    expect(at("9999-12-31T23:59:60Z")).toBe("9999-12-31T23:59:59.999Z");
  });

  it("clamps the year 0, which PostgreSQL does not read, to the first instant of the year 1", () => {
    expect(at("0000-01-01T00:00:00Z")).toBe("0001-01-01T00:00:00.000Z");
    expect(at("0000-12-31T23:59:59.999-01:00")).toBe("0001-01-01T00:59:59.999Z");
  });

  it("gives a window before 1901 as sent", () => {
    const window = listWindow({ after: "1850-01-01T00:00:00Z", before: "1899-12-31T23:59:59Z" });
    expect(window).toEqual({ after: new Date("1850-01-01T00:00:00Z"), before: new Date("1899-12-31T23:59:59Z") });
  });
});
