import { describe, expect, it } from "vitest";
import { KeyCache } from "../../server/key-cache.js";
import type { Environment } from "../../server/store/access.js";

const environment = (name: string): Environment => ({
  environmentId: name.padEnd(24, "0"),
  organizationId: "o".padEnd(24, "0"),
  name,
  retentionDays: null,
});

describe("API key cache", () => {
  it("looks a key up once per TTL, and again after it", async () => {
    let now = 1_000;
    let lookups = 0;
    const cache = new KeyCache(30_000, 100, () => now);
    const load = async () => {
      lookups++;
      return environment(`env${lookups}`);
    };
    expect((await cache.get("a", load))?.name).toBe("env1");
    now = 31_000;
    expect((await cache.get("a", load))?.name).toBe("env1");
    expect(lookups).toBe(1);
    now = 31_001;
    expect((await cache.get("a", load))?.name).toBe("env2");
    expect(lookups).toBe(2);
  });

  it("remembers an unknown key for 5 s: one lookup per 5 s for a repeated wrong key, a new key works after them", async () => {
    let now = 1_000;
    let known = false;
    let lookups = 0;
    const cache = new KeyCache(30_000, 100, () => now);
    const load = async () => {
      lookups++;
      return known ? environment("new") : undefined;
    };
    expect(await cache.get("k", load)).toBeUndefined();
    expect(cache.get("k", load)).toBeUndefined();
    expect(lookups).toBe(1);
    known = true;
    now = 6_000;
    expect(cache.get("k", load)).toBeUndefined();
    now = 6_001;
    expect((await cache.get("k", load))?.name).toBe("new");
    expect(lookups).toBe(2);
  });

  it("holds at most maxEntries keys, dropping the oldest", async () => {
    let lookups = 0;
    const cache = new KeyCache(60_000, 2);
    const load = async () => {
      lookups++;
      return environment("e");
    };
    await cache.get("a", load);
    await cache.get("b", load);
    await cache.get("c", load);
    expect(lookups).toBe(3);
    await cache.get("c", load);
    await cache.get("b", load);
    expect(lookups).toBe(3);
    await cache.get("a", load);
    expect(lookups).toBe(4);
  });

  it("with a TTL of 0 looks up every time", async () => {
    let lookups = 0;
    const cache = new KeyCache(0);
    const load = async () => {
      lookups++;
      return environment("e");
    };
    await cache.get("a", load);
    await cache.get("a", load);
    expect(lookups).toBe(2);
  });
});

describe("API key cache under concurrency", () => {
  it("makes one lookup for concurrent requests with a key it does not hold yet", async () => {
    let lookups = 0;
    const cache = new KeyCache(30_000);
    const load = async () => {
      lookups++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return environment("shared");
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.get("k", load)));
    expect(answers.map((answer) => answer?.name)).toEqual(Array(10).fill("shared"));
    expect(lookups).toBe(1);
  });
});
