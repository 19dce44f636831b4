/**
 * `npm run diff` names each change by its own name and place, on the real spec: a parameter added among the others
 * (it was named after the parameter at its index: "Added the header parameter `idempotency-key`"), one removed, a field
 * renamed three levels deep, an enum value added, a description changed; the release gate wants each breaking change
 * named on a **Breaking** line, and the reviewer's comment says per operation what implementations must do.
 */
import { describe, expect, it } from "vitest";
import { compareSpecs, renderReviewComment } from "../../scripts/diff/compare.js";
import { summarize } from "../../scripts/diff/describe.js";
import { gateProblems } from "../../scripts/diff/gate.js";
import { spec as bundled } from "../support/spec.js";
import type { Spec } from "./fixtures.js";

const operations = [
  "GET /v2/subscribers",
  "PATCH /v2/subscribers/{subscriberId}",
  "GET /v1/notifications",
  "GET /v1/notifications/{notificationId}",
];
const listParameters = (spec: Spec) => spec.paths["/v1/notifications"].get.parameters as Spec[];
const tags = { name: "tags", in: "query", required: false, schema: { type: "array", items: { type: "string" } } };

function linesAfter(mutate: (spec: Spec) => void): string[] {
  const after = structuredClone(bundled) as Spec;
  mutate(after);
  return summarize(compareSpecs(bundled as Spec, after), operations).map(
    (change) => `${change.clients} / ${change.implementations}: ${change.line}`,
  );
}

describe("the diff's words for each change", () => {
  it("names a parameter added in the middle by its own name", () => {
    expect(linesAfter((spec) => listParameters(spec).splice(4, 0, tags))).toEqual([
      "non-breaking / breaking: Added the query parameter `tags`, on GET /v1/notifications",
    ]);
  });

  it("names a parameter removed from the middle by its own name", () => {
    const search = (spec: Spec) => listParameters(spec).findIndex((p) => (p.$ref ?? "").endsWith("/ListSearch"));
    expect(linesAfter((spec) => listParameters(spec).splice(search(spec), 1))).toEqual([
      "breaking / non-breaking: Removed the query parameter `search`, on GET /v1/notifications",
    ]);
  });

  it("names a field renamed three levels deep, with where it is", () => {
    const rename = (spec: Spec) => {
      const properties = spec.components.schemas.ExecutionDetail.properties;
      properties.details = properties.detail;
      delete properties.detail;
    };
    expect(linesAfter(rename)).toEqual([
      "breaking / breaking: Renamed the field `detail` to `details` in the 200 answer (`data[].jobs[].executionDetails[].detail` → `data[].jobs[].executionDetails[].details`), on GET /v1/notifications",
      "breaking / breaking: Renamed the field `detail` to `details` in the 200 answer (`jobs[].executionDetails[].detail` → `jobs[].executionDetails[].details`), on GET /v1/notifications/{notificationId}",
    ]);
  });

  it("names an enum value added, in the request and in the answers", () => {
    expect(linesAfter((spec) => spec.components.schemas.SeverityLevel.enum.push("critical"))).toEqual([
      "non-breaking / breaking: Added the value `critical` to the query parameter `severity`, on GET /v1/notifications",
      "breaking / non-breaking: Added the value `critical` to `data[].severity` in the 200 answer, on GET /v1/notifications",
      "breaking / non-breaking: Added the value `critical` to `severity` in the 200 answer, on GET /v1/notifications/{notificationId}",
    ]);
  });

  it("tells a description-only change as documentation", () => {
    const describeEmail = (spec: Spec) => {
      spec.components.schemas.Subscriber.properties.email.description = "The e-mail address.";
    };
    expect(linesAfter(describeEmail)).toEqual([
      "documentation / documentation: Changed `description` of `data[].email` in the 200 answer, on GET /v2/subscribers",
      "documentation / documentation: Changed `description` of `email` in the 200 answer, on PATCH /v2/subscribers/{subscriberId}",
    ]);
  });
});

describe("the release gate and the reviewer's comment", () => {
  const after = structuredClone(bundled) as Spec;
  listParameters(after).splice(4, 0, tags);
  const changes = compareSpecs(bundled as Spec, after);

  it("refuses a CHANGELOG that calls an added parameter additive, or names the operation but not the parameter", () => {
    const additive = "## 0.4.0\n\n- Added the query parameter `tags` to GET /v1/notifications (additive).\n";
    const otherName = "## 0.4.0\n\n- **Breaking** GET /v1/notifications: the query parameter `topicKey`.\n";
    for (const changelog of [additive, otherName]) {
      expect(gateProblems(changes, "0.3.0", "0.4.0", changelog)).toEqual([
        "CHANGELOG.md has no **Breaking** line naming `tags` on GET /v1/notifications (Added the query parameter `tags`: breaking for implementations) under ## 0.4.0",
      ]);
    }
  });

  it("passes one that names it on a Breaking line, wrapped over two lines", () => {
    const changelog =
      "## 0.4.0\n\n- **Breaking** for implementations, GET /v1/notifications: the query\n  parameter `tags`.\n";
    expect(gateProblems(changes, "0.3.0", "0.4.0", changelog)).toEqual([]);
  });

  it("writes, per operation, what changes for clients and what implementations must do", () => {
    expect(renderReviewComment(changes, "release 0.3.0")).toBe(
      [
        "### Contract changes against release 0.3.0",
        "",
        "For clients: non-breaking · for implementations: **breaking**",
        "",
        "#### GET /v1/notifications",
        "",
        "- Added the query parameter `tags`. Clients: non-breaking. Implementations: **breaking**: accept the parameter and apply its meaning (declare it in contract/model/inputs/; the reference server gives it SQL).",
        "",
      ].join("\n"),
    );
  });
});
