import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxBodyDepth } from "../../express/request-rules.js";
import { operationIds, operationTable } from "../../generated/operations.js";
import type { Subscriber, ValidationErrorDto } from "../../generated/schema.js";
import { drivers } from "../support/databases.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";
import { type JsonObject, spec } from "../support/spec.js";

const patchFields = Object.entries(
  ((spec.components as JsonObject).schemas as Record<string, JsonObject>).PatchSubscriberRequest?.properties as Record<
    string,
    JsonObject
  >,
)
  .filter(([, schema]) => [schema.type].flat().includes("string"))
  .map(([name]) => name);

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

/** Requests whose only fault is input PostgreSQL cannot store, each with the input its 422 must name. */
function cases(subscriberId: string): { name: string; path: string; init?: RequestInit; key: string }[] {
  const list: { name: string; path: string; init?: RequestInit; key: string }[] = [];
  for (const id of operationIds) {
    const entry = operationTable[id];
    const samplePath = entry.path.replace(/\{[^}]+\}/g, (match) =>
      match === "{subscriberId}" ? subscriberId : "66b7e1d0c3a2b1f0e9d8c7b6",
    );
    const init = entry.method === "patch" ? jsonPatch({}) : {};
    for (const parameter of entry.queryParameters) {
      list.push({
        name: `${id} query ${parameter}`,
        path: `${samplePath}?${parameter}=a%00b`,
        init,
        key: `query.${parameter}`,
      });
    }
    for (const [, parameter] of entry.path.matchAll(/\{([^}]+)\}/g)) {
      const withValue = (value: string) => entry.path.replace(`{${parameter}}`, value);
      list.push({ name: `${id} path ${parameter} NUL`, path: withValue("a%00b"), init, key: `path.${parameter}` });
      list.push({
        name: `${id} path ${parameter} not UTF-8`,
        path: withValue("%ED%A0%80"),
        init,
        key: `path.${parameter}`,
      });
    }
  }
  const path = `/v2/subscribers/${subscriberId}`;
  const body = (name: string, text: string, key: string) => ({
    name,
    path,
    key,
    init: { method: "PATCH", headers: { "content-type": "application/json" }, body: text },
  });
  for (const field of patchFields) {
    list.push(body(`body ${field} NUL`, JSON.stringify({ [field]: "a\u0000b" }), `body.${field}`));
    list.push(body(`body ${field} lone surrogate`, JSON.stringify({ [field]: "a\ud800b" }), `body.${field}`));
  }
  list.push(body("data key NUL", '{"data":{"k\\u0000":1}}', "body.data"));
  list.push(body("data value NUL", '{"data":{"k":["x","y\\u0000"]}}', "body.data"));
  list.push(body("data lone low surrogate", '{"data":{"k":"\\udc00"}}', "body.data"));
  list.push(body("data key lone surrogate", '{"data":{"\\ud83d":true}}', "body.data"));
  list.push(body("data number beyond a double", '{"data":{"x":1e309}}', "body.data"));
  list.push(body("data nested too deep", JSON.stringify({ data: nested(maxBodyDepth) }), "body.data"));
  list.push(body("data nested far too deep", `{"data":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`, "body.data"));
  list.push(body("unknown field NUL", '{"x\\u0000":1}', "body.x\u0000"));
  return list;
}

describe.each(drivers)("input PostgreSQL cannot store (%s)", (driver) => {
  let server: TestServer;
  let subscriber: { subscriber_id: string };
  beforeAll(async () => {
    server = await startTestServer({ driver, demo: { subscribers: 10, notifications: 10 } });
    subscriber = server.production.subscribers.find((s) => !s.deleted) as { subscriber_id: string };
  });
  afterAll(() => server?.close());

  it("is answered 422 naming the input, on every operation, and changes nothing", async () => {
    const before = await json<Subscriber>(
      await server.request(`/v2/subscribers/${subscriber.subscriber_id}`, jsonPatch({})),
    );
    for (const { name, path, init, key } of cases(subscriber.subscriber_id)) {
      const response = await server.request(path, init);
      expect(response.status, name).toBe(422);
      const body = await json<ValidationErrorDto>(response);
      expect(body.statusCode, name).toBe(422);
      expect(Object.keys(body.errors), name).toContain(key);
    }
    const after = await json<Subscriber>(
      await server.request(`/v2/subscribers/${subscriber.subscriber_id}`, jsonPatch({})),
    );
    expect(after.__v).toBe(before.__v);
  });

  it("stores every other character as sent: controls, astral and paired surrogates, at the deepest allowed level", async () => {
    const text = "a\u0001\u001f\u007f\u0085\u009f\u200b\ud83d\ude00\uffff\u{10ffff}z";
    const data = { [text]: [text, 1e308, -0.5], deep: nested(maxBodyDepth - 2) };
    const response = await server.request(
      `/v2/subscribers/${subscriber.subscriber_id}`,
      jsonPatch({ firstName: text, lastName: text, data }),
    );
    expect(response.status).toBe(200);
    const patched = await json<Subscriber>(response);
    expect(patched.firstName).toBe(text);
    expect(patched.data).toEqual(data);
    const found = await json<{ data: Subscriber[] }>(
      await server.request(`/v2/subscribers?name=${encodeURIComponent(text.slice(0, 6))}`),
    );
    expect(found.data.map((s) => s.subscriberId)).toContain(subscriber.subscriber_id);
  });
});
