import type { Faker } from "@faker-js/faker";

/**
 * `digits` random lowercase hex digits from the seeded faker, drawn eight at a time (one 32-bit number each).
 * `faker.string.hexadecimal` draws one character at a time: the ids of a notification's jobs took 45% of the
 * generator's time, and the generator most of the loader's own (`npm run bench:data`; D52).
 */
export function randomHex(faker: Faker, digits: number): string {
  let hex = "";
  for (let left = digits; left > 0; left -= 8) {
    const width = Math.min(8, left);
    hex += faker.number
      .int({ min: 0, max: 16 ** width - 1 })
      .toString(16)
      .padStart(width, "0");
  }
  return hex;
}

/** A 24-hex id whose first 8 characters are the seconds of `at`, like an ObjectId. */
export function objectId(faker: Faker, at: Date | number): string {
  const seconds = Math.floor(new Date(at).getTime() / 1000)
    .toString(16)
    .padStart(8, "0");
  return seconds + randomHex(faker, 16);
}
