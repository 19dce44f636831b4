/**
 * A seeded source of randomness (mulberry32): the same seed draws the same values on every run, so that a conformance
 * report or a failing property can be replayed. The inputs' samples (inputs/) draw from it.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [0, below). */
  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.int(items.length)];
  }

  /** Up to `count` distinct items, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const picked: T[] = [];
    while (picked.length < count && pool.length > 0) picked.push(pool.splice(this.int(pool.length), 1)[0] as T);
    return picked;
  }

  /** A substring of 3 to 6 characters (or the whole text if shorter), its letters' case flipped at random. */
  substring(text: string): string {
    const chars = [...text];
    const length = Math.min(chars.length, 3 + this.int(4));
    const start = this.int(chars.length - length + 1);
    return chars
      .slice(start, start + length)
      .map((char) => (this.next() < 0.5 ? char.toUpperCase() : char.toLowerCase()))
      .join("");
  }
}
