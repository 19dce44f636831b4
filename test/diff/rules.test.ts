/**
 * The classification rules of `npm run diff` (scripts/diff/rules.ts): one old/new pair per rule on a small spec, the
 * real spec against itself and against a dozen mutations, and the release gate end to end in a temporary git
 * repository.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compareSpecs, isBreaking } from "../../scripts/diff/compare.js";
import { subjectOf } from "../../scripts/diff/describe.js";
import { allowsBreaking, gateProblems } from "../../scripts/diff/gate.js";
import type { ClassifiedChange } from "../../scripts/diff/rules.js";
import { rules } from "../../scripts/diff/rules.js";
import { body, list, response, type Spec, small } from "./fixtures.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** tsx by its file, since the temporary repositories have no node_modules. */
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** [rule, mutation, clients, implementations] */
const pairs: [string, (s: Spec) => void, string, string][] = [
  ["documentation", (s) => (list(s).description = "Lists items."), "documentation", "documentation"],
  [
    "documentation",
    (s) => (response(s).properties.note["x-faker"] = "lorem.sentence"),
    "documentation",
    "documentation",
  ],
  [
    "documentation",
    (s) => (response(s).properties.note["x-pattern-message"] = "Must be a note"),
    "documentation",
    "documentation",
  ],
  ["operation-removed", (s) => delete s.paths["/items"].patch, "breaking", "non-breaking"],
  [
    "operation-added",
    (s) => (s.paths["/other"] = { get: { operationId: "o", responses: {} } }),
    "non-breaking",
    "breaking",
  ],
  ["operation-id-changed", (s) => (list(s).operationId = "getItems"), "breaking", "breaking"],
  ["security-changed", (s) => (s.components.securitySchemes.key.name = "X-Key"), "breaking", "breaking"],
  [
    "parameter-added",
    (s) => list(s).parameters.push({ name: "q", in: "query", required: true, schema: { type: "string" } }),
    "breaking",
    "breaking",
  ],
  ["parameter-removed", (s) => list(s).parameters.splice(1, 1), "breaking", "non-breaking"],
  ["parameter-required-changed", (s) => (list(s).parameters[0].required = true), "breaking", "non-breaking"],
  ["default-changed", (s) => (list(s).parameters[0].schema.default = 20), "breaking", "breaking"],
  ["request-enum-narrowed", (s) => list(s).parameters[1].schema.enum.pop(), "breaking", "non-breaking"],
  ["request-enum-widened", (s) => list(s).parameters[1].schema.enum.push("c"), "non-breaking", "breaking"],
  ["request-bound-changed", (s) => (list(s).parameters[0].schema.maximum = 50), "breaking", "non-breaking"],
  ["request-bound-changed", (s) => (list(s).parameters[0].schema.maximum = 500), "non-breaking", "breaking"],
  ["request-field-added", (s) => (body(s).properties.color = { type: "string" }), "non-breaking", "breaking"],
  ["request-field-removed", (s) => delete body(s).properties.tag, "breaking", "non-breaking"],
  ["request-required-changed", (s) => (body(s).required = ["name"]), "breaking", "non-breaking"],
  ["request-additional-properties", (s) => (body(s).additionalProperties = true), "non-breaking", "breaking"],
  ["type-changed", (s) => (body(s).properties.name.type = "integer"), "breaking", "breaking"],
  ["status-changed", (s) => delete list(s).responses["404"], "non-breaking", "breaking"],
  ["status-changed", (s) => (list(s).responses["201"] = { description: "made" }), "non-breaking", "non-breaking"],
  [
    "media-type-changed",
    (s) => (list(s).responses["404"].content = { "text/plain": { schema: { type: "string" } } }),
    "breaking",
    "breaking",
  ],
  ["header-changed", (s) => delete list(s).responses["200"].headers["X-Request-Id"], "breaking", "non-breaking"],
  ["response-field-removed", (s) => delete response(s).properties.note, "breaking", "non-breaking"],
  ["response-field-added", (s) => (response(s).properties.extra = { type: "string" }), "non-breaking", "breaking"],
  ["response-required-changed", (s) => response(s).required.pop(), "breaking", "non-breaking"],
  ["response-enum-widened", (s) => response(s).properties.state.enum.push("paused"), "breaking", "non-breaking"],
  ["response-enum-narrowed", (s) => response(s).properties.state.enum.pop(), "non-breaking", "breaking"],
  ["response-const-added", (s) => (response(s).properties.note.const = "none"), "non-breaking", "breaking"],
  [
    "response-const-added",
    (s) =>
      (list(s).responses["200"].content["application/json"].schema = {
        allOf: [response(s), { properties: { note: { const: "none" } } }],
      }),
    "non-breaking",
    "breaking",
  ],
  ["type-changed", (s) => (response(s).properties.note.type = ["string", "null"]), "breaking", "breaking"],
  ["response-bound-changed", (s) => (response(s).properties.id.maxLength = 36), "breaking", "non-breaking"],
];

function changesOf(mutate: (s: Spec) => void, base: () => Spec = small): ClassifiedChange[] {
  const before = base();
  const after = structuredClone(before);
  mutate(after);
  return compareSpecs(before, after);
}

describe("classification rules", () => {
  it.each(pairs)("%s: %s", (rule, mutate, clients, implementations) => {
    const changes = changesOf(mutate);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.map((c) => [c.rule, c.clients, c.implementations])).toContainEqual([rule, clients, implementations]);
    expect(changes.filter((c) => c.rule === "unclassified")).toEqual([]);
  });

  it("has a fixture pair for every rule, and every rule is documented", () => {
    expect(new Set(pairs.map(([rule]) => rule))).toEqual(new Set(rules.map((rule) => rule.id)));
    for (const rule of rules) expect(rule.text.length).toBeGreaterThan(20);
  });

  it("gives JSON pointers into the new (or old) spec", () => {
    const [change] = changesOf((s) => (list(s).parameters[0].schema.maximum = 50));
    expect(change?.pointer).toBe("/paths/~1items/get/parameters/0/schema/maximum");
    expect(change?.where).toBe("GET /items");
  });
});

describe("the real contract", () => {
  const real = () => JSON.parse(readFileSync(join(root, "generated/openapi.json"), "utf8")) as Spec;
  const op = (s: Spec, path: string, method = "get") => s.paths[path][method];

  it("has no changes against itself, and none that break clients against the 0.1.0 release", () => {
    expect(compareSpecs(real(), real())).toEqual([]);
    const released = JSON.parse(readFileSync(join(root, "openapi/releases/0.1.0.json"), "utf8"));
    const breaking = compareSpecs(released, real()).filter(isBreaking);
    // The changes that break clients, on purpose (CHANGELOG 0.3.0): an idempotency key is printable ASCII, as every
    // SDK's keys are (others were echoed re-encoded); a search cursor may carry its updatedAt (D45; a schema replaced
    // by another is read as a change of type both ways, whichever way the new one goes).
    const forClients = breaking.filter((change) => change.clients === "breaking");
    expect(new Set(forClients.map((change) => `${change.rule} ${subjectOf(change)}`))).toEqual(
      new Set([
        "type-changed idempotency-key",
        "type-changed after",
        "type-changed before",
        "type-changed next",
        "type-changed previous",
      ]),
    );
    // 0.3.0 pins each error answer's statusCode to its status, and the next release adds Novu's `ctx: {}` to every 422
    // (a field, required): promises implementations must keep, nothing new for clients.
    expect(new Set(breaking.map((change) => change.rule))).toEqual(
      new Set([
        "response-const-added",
        "response-field-added",
        "response-required-changed",
        "type-changed",
        // The longer cursor (D45): implementations must read it.
        "request-bound-changed",
      ]),
    );
  });

  const mutations: [string, (s: Spec) => void, "breaking" | "non-breaking" | "documentation", string][] = [
    [
      "remove Subscriber.locale",
      (s) => delete s.components.schemas.Subscriber.properties.locale,
      "breaking",
      "response-field-removed",
    ],
    [
      "widen SeverityLevel",
      (s) => s.components.schemas.SeverityLevel.enum.push("urgent"),
      "breaking",
      "response-enum-widened",
    ],
    [
      "rename listNotifications",
      (s) => (op(s, "/v1/notifications").operationId = "listNotes"),
      "breaking",
      "operation-id-changed",
    ],
    ["remove PATCH", (s) => delete s.paths["/v2/subscribers/{subscriberId}"].patch, "breaking", "operation-removed"],
    [
      "add a path",
      (s) => (s.paths["/v2/topics"] = { get: { operationId: "listTopics", responses: {} } }),
      "non-breaking",
      "operation-added",
    ],
    [
      "describe the list",
      (s) => (op(s, "/v1/notifications").description = "New words."),
      "documentation",
      "documentation",
    ],
    ["remove the 402", (s) => delete op(s, "/v1/notifications").responses["402"], "non-breaking", "status-changed"],
    [
      "make the search limit 50 at most",
      (s) => {
        s.components.parameters.SearchLimit.schema.maximum = 50;
      },
      "breaking",
      "request-bound-changed",
    ],
    [
      "require email in the search",
      (s) => {
        s.components.parameters.SearchEmail.required = true;
      },
      "breaking",
      "parameter-required-changed",
    ],
    [
      "drop the idempotency header",
      (s) => {
        const patch = op(s, "/v2/subscribers/{subscriberId}", "patch");
        patch.parameters = patch.parameters.filter((p: Spec) => !String(p.$ref).endsWith("/IdempotencyKey"));
      },
      "breaking",
      "parameter-removed",
    ],
    [
      "close Notification's payload to a string",
      (s) => (s.components.schemas.Notification.properties.transactionId.type = "integer"),
      "breaking",
      "type-changed",
    ],
    [
      "change the list's default page size",
      (s) => {
        s.components.parameters.ListLimit.schema.default = 20;
      },
      "breaking",
      "default-changed",
    ],
  ];

  it.each(mutations)("classifies: %s", (_name, mutate, clients, rule) => {
    const changes = changesOf(mutate, real);
    expect(changes.map((c) => c.rule)).toContain(rule);
    expect(changes.some((c) => c.clients === clients)).toBe(true);
    expect(changes.filter((c) => c.rule === "unclassified")).toEqual([]);
  });
});

describe("the release gate", () => {
  const work = mkdtempSync(join(tmpdir(), "novu-query-gate-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("knows which versions allow a break", () => {
    expect(allowsBreaking("0.1.0", "0.2.0")).toBe(true);
    expect(allowsBreaking("0.1.0", "0.1.1")).toBe(false);
    expect(allowsBreaking("1.2.0", "1.3.0")).toBe(false);
    expect(allowsBreaking("1.2.0", "2.0.0")).toBe(true);
    expect(gateProblems([], "0.1.0", "0.1.0", "")).toEqual([]);
  });

  /** A repository holding a released 0.1.0 snapshot, a changed spec, a version and a CHANGELOG. */
  function repository(version: string, changelog: string, mutate: (s: Spec) => void): string {
    const dir = join(work, `${version}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(dir, "openapi", "releases"), { recursive: true });
    mkdirSync(join(dir, "generated"));
    writeFileSync(join(dir, "openapi", "releases", "0.1.0.json"), JSON.stringify(small()));
    const current = small();
    mutate(current);
    writeFileSync(join(dir, "generated", "openapi.json"), JSON.stringify(current));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", version }));
    writeFileSync(join(dir, "CHANGELOG.md"), changelog);
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["add", "."], { cwd: dir });
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"], { cwd: dir });
    return dir;
  }
  /**
   * `npm run diff -- <args>` in the repository made here. Its folder has no tsconfig.json: tsx is given the
   * repository's, so that the workspace packages resolve to their sources as in `npm run diff` (not to their dist/,
   * which only a build writes).
   */
  function diffIn(dir: string, ...args: string[]) {
    return spawnSync(process.execPath, ["--import", tsx, join(root, "scripts/diff.ts"), ...args], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, TSX_TSCONFIG_PATH: join(root, "tsconfig.json") },
    });
  }
  const gate = (version: string, changelog: string, mutate: (s: Spec) => void) =>
    diffIn(repository(version, changelog, mutate), "--gate");
  const removeNote = (s: Spec) => delete response(s).properties.note;

  it("fails a breaking change without a version bump", () => {
    const result = gate("0.1.0", "# Changelog\n\n## 0.1.0\n- first\n", removeNote);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("raise the minor version");
    expect(result.stdout).toContain("response-field-removed");
  });

  it("fails a bumped breaking change whose CHANGELOG does not name it", () => {
    const result = gate("0.2.0", "# Changelog\n\n## 0.2.0\n- things\n", removeNote);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("no **Breaking** line naming `note` on GET /items");
  });

  it("passes a breaking change with the minor raised and the break named", () => {
    const result = gate("0.2.0", "# Changelog\n\n## 0.2.0\n- **Breaking** GET /items: `note` removed\n", removeNote);
    expect(result.stderr).toContain("account for the changes");
    expect(result.status).toBe(0);
  });

  it("asks for a CHANGELOG section for a non-breaking change, and passes with one", () => {
    const widen = (s: Spec) => (list(s).responses["201"] = { description: "made" });
    expect(gate("0.1.0", "# Changelog\n\n## 0.1.0\n", widen).stderr).toContain("non-breaking contract changes");
    expect(gate("0.1.1", "# Changelog\n\n## 0.1.1\n- limit up to 500\n", widen).status).toBe(0);
  });

  it("compares with a git ref when one is given", () => {
    const repo = repository("0.1.0", "", () => {});
    const changed = small();
    removeNote(changed);
    writeFileSync(join(repo, "generated", "openapi.json"), JSON.stringify(changed));
    const result = diffIn(repo, "HEAD");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Contract changes against git HEAD");
    expect(result.stdout).toContain("response-field-removed");
  });
});
