/**
 * docs/frontend.md names every member of the query options and of the stateful mock's `MemoryApi`: a member added to
 * either and not documented fails here, by name (issue 46: `queries.notification`, `queries.listNotifications` and
 * `mock.api.data` were only in the `.d.ts`).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createClient } from "../../contract/index.js";
import { MemoryApi } from "../../contract/memory-api.js";
import * as neutral from "../../contract/query.js";
import * as react from "../../contract/react-query.js";

const docs = readFileSync(new URL("../../docs/frontend.md", import.meta.url), "utf8");
const api = createClient({ baseUrl: "https://api.example.com", apiKey: "k" });

const undocumented = (names: string[], written: (name: string) => string) =>
  names.filter((name) => !docs.includes(written(name)));

describe("docs/frontend.md", () => {
  it("names every member of createQueries and createQueryOptions, and every function of the entries", () => {
    const members = [
      ...new Set([...Object.keys(react.createQueries(api)), ...Object.keys(neutral.createQueryOptions(api))]),
    ];
    expect(members.length).toBeGreaterThan(6);
    expect(undocumented(members, (name) => `\`${name}`)).toEqual([]);
    const functions = [...new Set([...Object.keys(react), ...Object.keys(neutral)])];
    expect(undocumented(functions, (name) => `\`${name}`)).toEqual([]);
  });

  it("names every public member of the stateful mock's MemoryApi", () => {
    const members = Object.getOwnPropertyNames(MemoryApi.prototype).filter(
      (name) => name !== "constructor" && !["rows", "applyPatch"].includes(name),
    );
    expect(members).toContain("data");
    expect(undocumented(members, (name) => `mock.api.${name}`)).toEqual([]);
  });
});
