/** A small contract for the diff tests: one list with query parameters and a response, one PATCH with a closed body. */
// biome-ignore lint/suspicious/noExplicitAny: the fixtures mutate specs freely
export type Spec = Record<string, any>;

/** A small contract: one list with a query parameter and a response, one PATCH with a closed body. */
export function small(): Spec {
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1", description: "d" },
    security: [{ key: [] }],
    components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "Authorization" } } },
    paths: {
      "/items": {
        get: {
          operationId: "listItems",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 10 } },
            { name: "kind", in: "query", schema: { type: "string", enum: ["a", "b"] } },
          ],
          responses: {
            "200": {
              description: "ok",
              headers: { "X-Request-Id": { schema: { type: "string" } } },
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["id", "state"],
                    properties: {
                      id: { type: "string", maxLength: 24 },
                      state: { type: "string", enum: ["on", "off"] },
                      note: { type: "string" },
                    },
                  },
                },
              },
            },
            "404": { description: "missing", content: { "application/json": { schema: { type: "object" } } } },
          },
        },
        patch: {
          operationId: "patchItem",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  additionalProperties: false,
                  properties: { name: { type: "string", maxLength: 50 }, tag: { type: "string" } },
                },
              },
            },
          },
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  };
}

export const list = (s: Spec) => s.paths["/items"].get;
export const body = (s: Spec) => s.paths["/items"].patch.requestBody.content["application/json"].schema;
export const response = (s: Spec) => list(s).responses["200"].content["application/json"].schema;
