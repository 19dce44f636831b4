/**
 * The key hashes the authentication step remembers (D75): the SHA-256 of a key that authenticated, kept so that its
 * next request does not hash it again; nothing kept for keys that did not; bounded.
 */
import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { apiKeyAuthentication, RememberedHashes } from "../../express/authenticate.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("RememberedHashes", () => {
  it("answers a remembered key from memory, any other by hashing it", () => {
    const remembered = new RememberedHashes(2);
    expect(remembered.hashOf("key-a")).toBe(sha256("key-a"));
    remembered.authenticated("key-a", "remembered-a");
    expect(remembered.hashOf("key-a")).toBe("remembered-a");
    expect(remembered.hashOf("key-b")).toBe(sha256("key-b"));
  });

  it("forgets everything when full, and keeps at most its bound", () => {
    const remembered = new RememberedHashes(2);
    remembered.authenticated("key-a", "remembered-a");
    remembered.authenticated("key-b", "remembered-b");
    remembered.authenticated("key-a", "remembered-a");
    expect(remembered.hashOf("key-b")).toBe("remembered-b");
    remembered.authenticated("key-c", "remembered-c");
    expect([remembered.hashOf("key-a"), remembered.hashOf("key-b"), remembered.hashOf("key-c")]).toEqual([
      sha256("key-a"),
      sha256("key-b"),
      "remembered-c",
    ]);
  });
});

describe("apiKeyAuthentication with remembered hashes", () => {
  /** Runs the step once with `Authorization: ApiKey <key>`; resolves with what reached `next`. */
  const authenticateOnce = (step: ReturnType<typeof apiKeyAuthentication>, key: string) =>
    new Promise<unknown>((resolve) => {
      const req = { rawHeaders: ["Authorization", `ApiKey ${key}`] } as unknown as Request;
      void step(req, {} as Response, resolve);
    });

  it("gives the hook each key's own hash on every request, known or not, past the bound", async () => {
    const seen: Array<[string, string]> = [];
    const step = apiKeyAuthentication(({ apiKey, keyHash }) => {
      seen.push([apiKey, keyHash]);
      return apiKey.startsWith("known-") ? ({ environmentId: "e" } as never) : undefined;
    });
    const keys = Array.from({ length: 1500 }, (_, i) => (i % 3 === 0 ? `unknown-${i}` : `known-${i}`));
    for (const round of [1, 2]) {
      for (const key of keys) {
        const passed = await authenticateOnce(step, key);
        expect(passed === undefined, `${key}, round ${round}`).toBe(key.startsWith("known-"));
      }
    }
    expect(seen).toHaveLength(3000);
    for (const [apiKey, keyHash] of seen) expect(keyHash, apiKey).toBe(sha256(apiKey));
  });
});
