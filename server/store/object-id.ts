import { randomBytes } from "node:crypto";

let counter = randomBytes(3).readUIntBE(0, 3);

/** A new 24-hex-character id in MongoDB ObjectId form: 4 bytes of seconds, 5 random bytes, a 3-byte counter. */
export function newObjectId(now: Date = new Date()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now.getTime() / 1000)
    .toString(16)
    .padStart(8, "0");
  return seconds + randomBytes(5).toString("hex") + counter.toString(16).padStart(6, "0");
}
