/** The factories (contract/factories.ts): valid against the spec over thousands of seeds, realistic, deterministic. */
import { describe, expect, it } from "vitest";
import { createSpecAjv, validatorAt } from "../../conformance/spec-validator.js";
import { createFactories, makeNotification, makeSubscriber, makeSubscribers } from "../../contract/factories.js";

const ajv = createSpecAjv();
const valid = (schema: string) => {
  const validate = validatorAt(ajv, `/components/schemas/${schema}`);
  return (value: unknown) => {
    if (!validate(value)) throw new Error(`${schema}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
  };
};
const now = Date.parse("2026-11-24T00:00:00.000Z");

describe("the factories", () => {
  it("make 10,000 subscribers and 10,000 notifications, over a thousand seeds, every one valid against the spec", () => {
    const subscriber = valid("Subscriber");
    const notification = valid("Notification");
    for (let seed = 1; seed <= 1000; seed++) {
      const make = createFactories({ seed, now });
      const subscribers = make.subscribers(10);
      for (const s of subscribers) subscriber(s);
      for (const n of make.notifications(10, undefined, subscribers)) notification(n);
    }
  });

  it("make every response body of the contract valid against its schema", () => {
    const make = createFactories({ seed: 3, now });
    valid("SearchSubscribersResponse")(make.searchSubscribersResponse());
    valid("ListNotificationsResponse")(make.listNotificationsResponse());
    for (const status of [400, 401, 402, 404, 409, 413, 414, 415, 429, 500, 503]) valid("ErrorDto")(make.error(status));
    valid("ValidationErrorDto")(make.validationError());
  });

  it("are realistic: e-mails from the name, phone numbers, locales and time zones that go together, recent dates", () => {
    const make = createFactories({ seed: 11, now });
    const subscribers = make.subscribers(500);
    for (const s of subscribers) {
      if (s.email && s.firstName)
        expect(s.email.split(".")[0]).toBe(
          s.firstName
            .normalize("NFD")
            .replace(/[^A-Za-z]/g, "")
            .toLowerCase(),
        );
      if (s.phone) expect(s.phone).toMatch(/^\+\d{10,14}$/);
      if (s.locale?.startsWith("de")) expect([null, "Europe/Berlin"]).toContain(s.timezone);
      expect(Date.parse(s.createdAt)).toBeLessThan(now);
      expect(Date.parse(s.createdAt)).toBeGreaterThan(now - 366 * 86_400_000);
      expect(Date.parse(s.updatedAt)).toBeGreaterThanOrEqual(Date.parse(s.createdAt));
    }
    expect(new Set(subscribers.map((s) => s.firstName)).size).toBeGreaterThan(20);
    expect(new Set(subscribers.map((s) => s.locale)).size).toBeGreaterThan(8);
    const notifications = make.notifications(200, undefined, subscribers);
    for (const n of notifications) {
      const to = subscribers.find((s) => s._id === n._subscriberId);
      expect(n.subscriber?.subscriberId).toBe(to?.subscriberId);
      expect(Date.parse(n.createdAt)).toBeLessThan(now);
      expect(n.jobs.length).toBeGreaterThan(0);
    }
  });

  it("are deterministic by seed, call for call, and differ between seeds", () => {
    expect(makeSubscribers(20, { seed: 5, now })).toEqual(makeSubscribers(20, { seed: 5, now }));
    expect(makeSubscribers(20, { seed: 5, now })).not.toEqual(makeSubscribers(20, { seed: 6, now }));
    expect(makeNotification({}, { seed: 2, now })).toEqual(makeNotification({}, { seed: 2, now }));
  });

  it("make a new record on each make* call without a seed, and the same one with a seed", () => {
    const [first, second] = [makeSubscriber(), makeSubscriber()];
    expect(second._id).not.toBe(first._id);
    expect(second.subscriberId).not.toBe(first.subscriberId);
    expect(makeNotification()._id).not.toBe(makeNotification()._id);
    expect(makeSubscriber({}, { seed: 3 })).toEqual(makeSubscriber({}, { seed: 3 }));
  });

  it("never give two subscribers of one factory the same subscriberId or e-mail address", () => {
    for (const seed of [1, 2, 3]) {
      const subscribers = createFactories({ seed }).subscribers(1000);
      const emails = subscribers.flatMap((s) => (s.email === null || s.email === undefined ? [] : [s.email]));
      expect(new Set(emails).size).toBe(emails.length);
      expect(new Set(subscribers.map((s) => s.subscriberId)).size).toBe(1000);
      expect(new Set(subscribers.map((s) => s._id)).size).toBe(1000);
    }
  });

  it("type an error body with its status, as respond() wants it", () => {
    const make = createFactories();
    const busy: { statusCode: 503 } = make.error(503, { statusCode: 500 });
    expect(busy).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
  });

  it("take overrides, per item where a function gives them", () => {
    expect(makeSubscriber({ firstName: "Ada", email: null }, { seed: 1 })).toMatchObject({
      firstName: "Ada",
      email: null,
    });
    const ids = createFactories({ seed: 1 }).subscribers(3, (i) => ({ subscriberId: `user-${i}` }));
    expect(ids.map((s) => s.subscriberId)).toEqual(["user-0", "user-1", "user-2"]);
  });
});
