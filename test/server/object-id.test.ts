/**
 * The demo generator's random ids (server/demo/object-id.ts): hex of the width asked, lowercase, the same for the same
 * seed, and every digit drawn at every place (no place stuck at a value, as a wrong range or padding would leave it).
 */
import { en, Faker } from "@faker-js/faker";
import { describe, expect, it } from "vitest";
import { objectId, randomHex } from "../../server/demo/object-id.js";

const seeded = (seed: number) => {
  const faker = new Faker({ locale: [en] });
  faker.seed(seed);
  return faker;
};

describe("the demo's random ids", () => {
  it.each([1, 7, 8, 9, 12, 16, 24])("draw %i lowercase hex digits", (digits) => {
    const faker = seeded(1);
    for (let i = 0; i < 200; i++) expect(randomHex(faker, digits)).toMatch(new RegExp(`^[0-9a-f]{${digits}}$`));
  });

  it("draw every digit at every place", () => {
    const faker = seeded(2);
    const seen = Array.from({ length: 16 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      for (const [at, digit] of [...randomHex(faker, 16)].entries()) seen[at]?.add(digit);
    }
    expect(seen.map((digits) => digits.size)).toEqual(seen.map(() => 16));
  });

  it("are the same for the same seed", () => {
    const draw = (seed: number) => Array.from({ length: 5 }, () => randomHex(seeded(seed), 12));
    expect(draw(3)).toEqual(draw(3));
    expect(new Set(Array.from({ length: 100 }, (_, i) => randomHex(seeded(i), 12))).size).toBe(100);
  });

  it("make ObjectIds: the seconds of their time, then 16 random digits", () => {
    const id = objectId(seeded(4), Date.UTC(2026, 10, 27));
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.parseInt(id.slice(0, 8), 16)).toBe(Date.UTC(2026, 10, 27) / 1000);
  });
});
