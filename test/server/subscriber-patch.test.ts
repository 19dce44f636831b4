import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorDto, Subscriber, ValidationErrorDto } from "../../generated/schema.js";
import type { SubscriberRow } from "../../server/store/rows.js";
import { drivers } from "../support/databases.js";
import { json, jsonPatch, startTestServer, type TestServer } from "../support/server.js";

describe.each(drivers)("PATCH /v2/subscribers/{subscriberId} (%s)", (driver) => {
  let server: TestServer;
  let pool: SubscriberRow[];
  /** Each test takes subscribers of its own, so that tests do not see each other's changes. */
  const take = () => {
    const next = pool.shift();
    if (!next) throw new Error("out of demo subscribers");
    return next;
  };
  const patch = (subscriberId: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request(`/v2/subscribers/${encodeURIComponent(subscriberId)}`, jsonPatch(body, headers));
  const current = async (subscriberId: string) =>
    (await patch(subscriberId, {}).then((r) => json<Subscriber>(r))) as Subscriber;

  beforeAll(async () => {
    server = await startTestServer({ driver });
    pool = server.production.subscribers.filter((s) => !s.deleted);
  });
  afterAll(() => server?.close());

  it("changes the given fields, keeps absent ones, bumps __v by one and sets updatedAt", async () => {
    const subscriber = take();
    const before = await current(subscriber.subscriber_id);
    const response = await patch(subscriber.subscriber_id, {
      firstName: "Ada",
      locale: "en-GB",
      timezone: "Europe/Paris",
    });
    expect(response.status).toBe(200);
    const after = await json<Subscriber>(response);
    expect(after).toEqual({
      ...before,
      firstName: "Ada",
      locale: "en-GB",
      timezone: "Europe/Paris",
      __v: before.__v + 1,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(await current(subscriber.subscriber_id)).toEqual(after);
  });

  it("clears a field given as null and replaces data as a whole", async () => {
    const subscriber = take();
    await patch(subscriber.subscriber_id, { phone: "+4930123456", data: { plan: "team", seats: 3, flags: ["a"] } });
    const response = await patch(subscriber.subscriber_id, { phone: null, data: { plan: "enterprise" } });
    const after = await json<Subscriber>(response);
    expect(after.phone).toBeNull();
    expect(after.data).toEqual({ plan: "enterprise" });
    const cleared = await json<Subscriber>(await patch(subscriber.subscriber_id, { data: null, avatar: null }));
    expect(cleared.data).toBeNull();
    expect(cleared.avatar).toBeNull();
  });

  it("writes nothing when the body changes nothing", async () => {
    const subscriber = take();
    const before = await current(subscriber.subscriber_id);
    const same = await json<Subscriber>(
      await patch(subscriber.subscriber_id, { firstName: before.firstName, data: before.data, email: before.email }),
    );
    expect(same).toEqual(before);
    expect(await json<Subscriber>(await patch(subscriber.subscriber_id, {}))).toEqual(before);
  });

  it("answers an unknown subscriber with 404 in the error shape", async () => {
    const response = await patch("no-such-subscriber", { firstName: "X" });
    expect(response.status).toBe(404);
    expect(await json<ErrorDto>(response)).toMatchObject({
      statusCode: 404,
      error: "Not Found",
      message: "Subscriber no-such-subscriber was not found",
      path: "/v2/subscribers/no-such-subscriber",
    });
  });

  it("rejects unknown fields and invalid values with 422 naming each, and changes nothing", async () => {
    const subscriber = take();
    const before = await current(subscriber.subscriber_id);
    const response = await patch(subscriber.subscriber_id, {
      fristName: "Ada",
      email: "not-an-email",
      locale: "english please",
      data: "not an object",
    });
    expect(response.status).toBe(422);
    const body = await json<ValidationErrorDto>(response);
    expect(Object.keys(body.errors).sort()).toEqual(["body.data", "body.email", "body.fristName", "body.locale"]);
    expect(body.errors["body.fristName"]).toEqual({ messages: ["is not a known field"], value: "Ada" });
    expect(body.errors["body.email"]?.value).toBe("not-an-email");
    expect(await current(subscriber.subscriber_id)).toEqual(before);
  });

  it("names an unknown field exactly as sent, whatever characters it holds (found by the operation fuzzer)", async () => {
    const subscriber = take();
    const names = ["% ", "a%20b", "a/b", "a~1b", "~"];
    const response = await patch(subscriber.subscriber_id, Object.fromEntries(names.map((name, i) => [name, i])));
    expect(response.status).toBe(422);
    const body = await json<ValidationErrorDto>(response);
    expect(body.errors).toEqual(
      Object.fromEntries(names.map((name, i) => [`body.${name}`, { messages: ["is not a known field"], value: i }])),
    );
  });

  it.each([["Mars/Olympus_Mons"], ["Europe/Atlantis"]])("rejects the time zone %s with 422", async (timezone) => {
    const subscriber = take();
    const response = await patch(subscriber.subscriber_id, { timezone });
    expect(response.status).toBe(422);
    expect((await json<ValidationErrorDto>(response)).errors["body.timezone"]).toEqual({
      messages: ["Must be an IANA time zone such as Europe/Paris or UTC"],
      value: timezone,
    });
  });

  it.each([["en"], ["pt-BR"], ["zh-Hant-TW"], ["es-419"]])("accepts the locale %s", async (locale) => {
    const subscriber = take();
    const response = await patch(subscriber.subscriber_id, { locale });
    expect(response.status).toBe(200);
    expect((await json<Subscriber>(response)).locale).toBe(locale);
  });

  it("answers malformed JSON with 400, a non-JSON body with 415 and an oversized body with 413", async () => {
    const { subscriber_id: id } = take();
    const malformed = await server.request(`/v2/subscribers/${id}`, {
      method: "PATCH",
      body: '{"firstName": ',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect((await json<ErrorDto>(malformed)).message).toBe("Malformed JSON in request body");
    const text = await server.request(`/v2/subscribers/${id}`, { method: "PATCH", body: "firstName=Ada" });
    expect(text.status).toBe(415);
    expect((await json<ErrorDto>(text)).message).toBe("Content-Type must be application/json");
    // A form with a file, as a browser's FormData sends it: refused before anything parses it (no multipart step).
    const form = new FormData();
    form.set("firstName", "Ada");
    form.set("avatar", new Blob(["not an image"], { type: "image/png" }), "avatar.png");
    const before = await current(id);
    const multipart = await server.request(`/v2/subscribers/${id}`, { method: "PATCH", body: form });
    expect(multipart.status).toBe(415);
    expect(await json<ErrorDto>(multipart)).toMatchObject({
      statusCode: 415,
      message: "Content-Type must be application/json",
    });
    expect(await current(id)).toEqual(before);
    const huge = await patch(id, { data: { blob: "x".repeat(200 * 1024) } });
    expect(huge.status).toBe(413);
    expect((await json<ErrorDto>(huge)).statusCode).toBe(413);
    const array = await patch(id, [{ firstName: "Ada" }]);
    expect(array.status).toBe(422);
    // Found by fuzzing: an empty body was read as {}.
    const empty = await server.request(`/v2/subscribers/${id}`, {
      method: "PATCH",
      body: "",
      headers: { "content-type": "application/json" },
    });
    expect(empty.status).toBe(422);
    expect((await json<ValidationErrorDto>(empty)).errors).toEqual({
      body: { messages: ["is required"], value: null },
    });
  });

  it("loses no update under concurrent patches: __v counts every change", async () => {
    const subscriber = take();
    const before = await current(subscriber.subscriber_id);
    const count = 25;
    const responses = await Promise.all(
      Array.from({ length: count }, (_, i) => patch(subscriber.subscriber_id, { data: { writer: i } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(count).fill(200));
    const versions = (await Promise.all(responses.map((r) => json<Subscriber>(r))))
      .map((s) => s.__v)
      .sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: count }, (_, i) => before.__v + 1 + i));
    expect((await current(subscriber.subscriber_id)).__v).toBe(before.__v + count);
  });

  it("loses no field when concurrent patches change different fields", async () => {
    const subscriber = take();
    await Promise.all([
      patch(subscriber.subscriber_id, { firstName: "Concurrent" }),
      patch(subscriber.subscriber_id, { lastName: "Writers" }),
      patch(subscriber.subscriber_id, { phone: "+15550001111" }),
      patch(subscriber.subscriber_id, { avatar: "https://cdn.example.com/a.png" }),
    ]);
    expect(await current(subscriber.subscriber_id)).toMatchObject({
      firstName: "Concurrent",
      lastName: "Writers",
      phone: "+15550001111",
      avatar: "https://cdn.example.com/a.png",
    });
  });
});
