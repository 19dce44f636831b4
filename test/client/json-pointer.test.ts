import { describe, expect, it } from "vitest";
import { pointerOf, resolveRef, segmentsOf, valueAt } from "../../contract/json-pointer.js";

describe("JSON pointers", () => {
  it("escape '~' before '/' and decode '~1' before '~0', so every key comes back as it was", () => {
    for (const key of ["/v2/subscribers/{subscriberId}", "~1", "~0", "a~/b", "~01", "", "% "]) {
      expect(segmentsOf(pointerOf(["paths", key]))).toEqual(["paths", key]);
    }
    expect(pointerOf(["~1"])).toBe("/~01");
    expect(segmentsOf("/~01")).toEqual(["~1"]);
    expect(segmentsOf("#/components/schemas/A~1B")).toEqual(["components", "schemas", "A/B"]);
    expect(segmentsOf("#")).toEqual([]);
  });

  it("find what a pointer names, and undefined where the path leaves the document", () => {
    const document = { paths: { "/a~b": { get: { responses: ["x", "y"] } } } };
    expect(valueAt(document, "/paths/~1a~0b/get/responses/1")).toBe("y");
    expect(valueAt(document, "/paths/~1a~0b/post/responses")).toBeUndefined();
    expect(valueAt(document, "")).toBe(document);
  });

  it("follow $refs in turn, and refuse a cycle instead of looping", () => {
    const document = {
      components: {
        schemas: {
          A: { $ref: "#/components/schemas/B" },
          B: { type: "string" },
          C: { $ref: "#/components/schemas/C" },
        },
      },
    };
    expect(resolveRef(document, { $ref: "#/components/schemas/A" })).toEqual({ type: "string" });
    expect(resolveRef(document, { type: "integer" })).toEqual({ type: "integer" });
    expect(() => resolveRef(document, { $ref: "#/components/schemas/C" })).toThrow(/cycle/);
  });
});
