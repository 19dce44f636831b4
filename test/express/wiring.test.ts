import { STATUS_CODES } from "node:http";
import { ApiError } from "@novu-query/express";
import type { NextFunction, Request, Response } from "express";
import { describe, expect, it, vi } from "vitest";
import { bindOperation } from "../../express/bind.js";
import { reasonPhrase } from "../../express/errors.js";
import { listOperations } from "../../scripts/operation-table.js";
import type { Store } from "../../server/store/store.js";

describe("the skeleton's own wiring", () => {
  it("treats a handler reached without authentication as its own mistake (500), not the caller's (401)", async () => {
    const handler = vi.fn();
    const bound = bindOperation("getNotification", handler, { services: () => ({ store: {} as Store }) });
    const next = vi.fn<(error?: unknown) => void>();
    await bound({} as Request, { locals: {} } as Response, next as NextFunction);
    expect(handler).not.toHaveBeenCalled();
    const error = next.mock.calls[0]?.[0];
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(String(error)).toContain("getNotification was reached without authentication");
  });

  it("takes reason phrases from node:http", () => {
    for (const status of [400, 401, 402, 404, 405, 408, 409, 413, 414, 415, 422, 429, 431, 500, 501, 503]) {
      expect(reasonPhrase(status)).toBe(STATUS_CODES[status]);
    }
  });

  it("reads JSON pointers in $refs as RFC 6901 does, ~1 and ~0 included (as the tests' resolver does)", () => {
    const spec = {
      paths: {
        "/things": { get: { operationId: "listThings", parameters: [{ $ref: "#/components/parameters/a~1b~0c" }] } },
      },
      components: { parameters: { "a/b~c": { name: "tilde", in: "query", schema: { type: "string", default: "x" } } } },
    };
    const [row] = listOperations(spec);
    expect(row?.queryParameters).toEqual(["tilde"]);
    expect(row?.queryDefaults).toEqual({ tilde: "x" });
  });
});
