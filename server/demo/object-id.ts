import type { Faker } from "@faker-js/faker";

/** A 24-hex id whose first 8 characters are the seconds of `at`, like an ObjectId. */
export function objectId(faker: Faker, at: Date | number): string {
  const seconds = Math.floor(new Date(at).getTime() / 1000)
    .toString(16)
    .padStart(8, "0");
  return seconds + faker.string.hexadecimal({ length: 16, casing: "lower", prefix: "" });
}
