/**
 * The PATCH rules. Those that change data change the write target only (write-target.ts), only in the fields whose
 * stored values a PATCH can put back, and put back exactly what they changed; `--read-only` skips every rule that
 * sends a PATCH. Each body field is sent with the values clients send for it (its declared samples: empty strings,
 * mixed-case e-mails, time-zone aliases, ...), alone and all together, and compared with the model; a real change
 * must move `updatedAt` and `__v`, a no-op neither.
 */
import type { PatchSubscriberRequest, Subscriber } from "@novu-query/contract";
import { inputs, patchSubscriber, Random } from "@novu-query/contract/model";
import { type ConformanceContext, check, checkEqual, type Rule } from "./context.js";
import { snapshotOf } from "./oracle.js";
import { refusedOnWrite, restorable, restoreBody, type WritableField, writeTarget } from "./write-target.js";

export function patch(
  context: ConformanceContext,
  subscriberId: string,
  body: Record<string, unknown>,
  key?: string,
  client = context.client,
) {
  return client.PATCH("/v2/subscribers/{subscriberId}", {
    params: { path: { subscriberId } },
    body,
    ...(key ? { headers: { "idempotency-key": key } } : {}),
  });
}

/** The subscriber as the service holds it now (read by a search). */
export async function current(context: ConformanceContext, subscriberId: string, client = context.client) {
  const { data, response } = await client.GET("/v2/subscribers", { params: { query: { subscriberId } } });
  check(response.status === 200 && data?.data[0], `GET /v2/subscribers?subscriberId=${subscriberId} found nothing`);
  return data.data[0];
}

/** A subscriber for the rules that change nothing (a PATCH of `{}`, a refused body): the first a search returns. */
export async function anySubscriber(context: ConformanceContext): Promise<Subscriber> {
  const { data, response } = await context.client.GET("/v2/subscribers", { params: { query: { limit: 1 } } });
  check(response.status === 200 && data?.data[0], "the environment needs at least one subscriber for the PATCH rules");
  return data.data[0];
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A PATCH compared with the model over the subscriber as it was: the answer whole, `__v` and `updatedAt` moved on a
 * real change (strictly later: the rule waits a few milliseconds first) and unmoved on a no-op, and a search reading
 * the same back. Returns the subscriber after it.
 */
async function expectPatch(context: ConformanceContext, before: Subscriber, body: PatchSubscriberRequest) {
  const request = `PATCH /v2/subscribers/${before.subscriberId} ${JSON.stringify(body).slice(0, 100)}`;
  await wait(3);
  const { data, response } = await patch(context, before.subscriberId, body);
  check(response.status === 200 && data, `${request} answered ${response.status}`);
  const expected = patchSubscriber([before], before.subscriberId, body, new Date(data.updatedAt));
  check(expected.status === 200, `the model refuses ${request}`);
  if (expected.changed) {
    check(
      Date.parse(data.updatedAt) > Date.parse(before.updatedAt),
      `${request} changed the subscriber but updatedAt did not move (${before.updatedAt} → ${data.updatedAt})`,
    );
  } else {
    checkEqual([data.__v, data.updatedAt], [before.__v, before.updatedAt], `${request}: a no-op's __v and updatedAt`);
  }
  checkEqual(data, expected.body, `${request}: the answer against the model's`);
  checkEqual(await current(context, before.subscriberId), data, `${request}: the subscriber read back by a search`);
  return data;
}

/** Runs `work` on the write target, then puts back what it held in `fields` (all restorable ones by default). */
async function onTarget(
  context: ConformanceContext,
  work: (before: Subscriber, fields: readonly WritableField[]) => Promise<void>,
  fields?: readonly WritableField[],
): Promise<void> {
  const target = await writeTarget(context);
  const before = await current(context, target.subscriber.subscriberId);
  try {
    await work(before, fields ?? target.fields);
  } finally {
    await patch(context, before.subscriberId, restoreBody(target, fields));
  }
}

/** Every seed the run draws with (`--seeds`), from `--seed`. */
export function seedsOf(context: ConformanceContext): number[] {
  const first = context.target.seed ?? 1;
  return Array.from({ length: Math.max(1, context.target.seeds ?? 3) }, (_, n) => first + n);
}

type BodyDeclaration = { samples(data: unknown, random: Random): unknown[] };

export const patchRules: Rule[] = [
  {
    id: "patch.shape",
    level: "shape",
    writes: true,
    text: "PATCH /v2/subscribers/{subscriberId} answers 200 with a Subscriber",
    async run(c) {
      const target = await anySubscriber(c);
      const { data, response } = await patch(c, target.subscriberId, {});
      check(response.status === 200, `PATCH answered ${response.status}`);
      c.matchesSchema(data, "Subscriber");
    },
  },
  {
    id: "patch.unknown-field",
    level: "shape",
    writes: true,
    text: "An unknown body field is answered 422",
    async run(c) {
      const target = await anySubscriber(c);
      const response = await c.raw(`/v2/subscribers/${encodeURIComponent(target.subscriberId)}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fristName: "typo" }),
      });
      await c.expectError(response, 422);
    },
  },
  {
    id: "patch.fields",
    level: "behaviour",
    writes: true,
    text: "Each field PATCHed alone with the values clients send (empty strings, mixed-case e-mails, time-zone aliases, null), then again (a no-op), then all at once: as the model says, updatedAt and __v moved by a change only, read back the same",
    async run(c) {
      const snapshot = await snapshotOf(c);
      let sent = 0;
      await onTarget(c, async (before, fields) => {
        let now = before;
        for (const seed of seedsOf(c)) {
          const random = new Random(seed);
          const together: Record<string, unknown> = {};
          for (const field of fields) {
            const declaration = inputs.patchSubscriber.body[field] as unknown as BodyDeclaration;
            // Values drawn from stored data the contract would refuse (an e-mail with a `%`) are not sent.
            const values = declaration.samples(snapshot, random).filter((value) => !refusedOnWrite(field, value));
            for (const value of values) {
              now = await expectPatch(c, now, { [field]: value });
              now = await expectPatch(c, now, { [field]: value });
              together[field] = value;
              sent += 2;
            }
          }
          now = await expectPatch(c, now, together);
          now = await expectPatch(c, now, restoreBody(await writeTarget(c), fields));
        }
      });
      c.note(`${sent + 2 * seedsOf(c).length} PATCHes over ${seedsOf(c).length} seed(s)`);
    },
  },
  {
    id: "patch.read-back",
    level: "behaviour",
    writes: true,
    text: "A PATCH of every field answers what the model says and a search reads the same back; so do another data object (replacing the first whole), null for every field, and the old values back",
    async run(c) {
      await onTarget(c, async (before, fields) => {
        const n = Date.now() % 100_000;
        const target = await writeTarget(c);
        const changes = restorable(target, {
          firstName: `Conformance ${n}`,
          lastName: `${before.lastName ?? ""}~`,
          email: `conformance.${n}@example.com`,
          phone: `+1555${String(n).padStart(7, "0")}`,
          avatar: `https://example.com/avatars/${n}.png`,
          locale: before.locale === "de-DE" ? "fr-FR" : "de-DE",
          timezone: before.timezone === "Asia/Tokyo" ? "Europe/Berlin" : "Asia/Tokyo",
          data: { conformance: n, nested: { list: [1, "two", null] } },
        });
        const cleared = Object.fromEntries(fields.map((field) => [field, null])) as PatchSubscriberRequest;
        // A second object for `data` after the first: it replaces it whole (a merge keeps the first one's keys).
        const otherData = restorable(target, { data: { replaced: n } });
        let now = before;
        for (const body of [changes, otherData, cleared, restoreBody(target, fields)]) {
          now = await expectPatch(c, now, body);
        }
      });
    },
  },
  {
    id: "patch.merge",
    level: "behaviour",
    writes: true,
    text: "A patch changes the given fields, keeps the others, increments __v by one and sets updatedAt; null clears",
    async run(c) {
      await onTarget(
        c,
        async (before) => {
          const marker = { conformance: Date.now() };
          await wait(3);
          const { data: changed } = await patch(c, before.subscriberId, { data: marker });
          check(changed, "the patch failed");
          checkEqual(changed.data, marker, "data after the patch");
          checkEqual(changed.__v, before.__v + 1, "__v after one change");
          check(Date.parse(changed.updatedAt) > Date.parse(before.updatedAt), "updatedAt did not move");
          checkEqual(
            { ...changed, data: null, __v: 0, updatedAt: "" },
            { ...before, data: null, __v: 0, updatedAt: "" },
            "the other fields",
          );
          const { data: cleared } = await patch(c, before.subscriberId, { data: null });
          checkEqual(cleared?.data, null, "data after null");
        },
        ["data"],
      );
    },
  },
  {
    id: "patch.locale",
    level: "behaviour",
    writes: true,
    text: "A locale as Novu accepts it, `en_US` as well as `en-US`, is stored and returned as sent",
    async run(c) {
      await onTarget(
        c,
        async (before) => {
          for (const locale of ["en_US", "zh-Hant-TW"]) {
            const { data, response } = await patch(c, before.subscriberId, { locale });
            check(response.status === 200, `locale ${locale} answered ${response.status}`);
            checkEqual(data?.locale, locale, "locale");
          }
        },
        ["locale"],
      );
    },
  },
  {
    id: "patch.no-op",
    level: "behaviour",
    writes: true,
    text: "A patch that changes nothing (an object's keys in another order included) leaves __v and updatedAt as they were",
    async run(c) {
      await onTarget(
        c,
        async (before) => {
          const { data } = await patch(c, before.subscriberId, { data: before.data });
          checkEqual([data?.__v, data?.updatedAt], [before.__v, before.updatedAt], "__v and updatedAt");
          // An object is the same whatever the order of its keys, and so is a nested one (as jsonb compares them).
          const stored = { b: [1, { y: "two", x: null }], a: "one" };
          const { data: changed } = await patch(c, before.subscriberId, { data: stored });
          check(changed, "the patch of data failed");
          const reordered = { a: "one", b: [1, { x: null, y: "two" }] };
          const { data: same } = await patch(c, before.subscriberId, { data: reordered });
          checkEqual(
            [same?.__v, same?.updatedAt],
            [changed.__v, changed.updatedAt],
            "__v and updatedAt after the same data, keys reordered",
          );
          const { data: other } = await patch(c, before.subscriberId, {
            data: { a: "one", b: [{ x: null, y: "two" }, 1] },
          });
          checkEqual(other?.__v, changed.__v + 1, "__v after data whose array is in another order");
        },
        ["data"],
      );
    },
  },
  {
    id: "patch.idempotent-replay",
    level: "behaviour",
    writes: true,
    text: "The same idempotency key and body is applied once and replayed with Idempotency-Replay: true; every answer echoes Idempotency-Key, and reusing the key for another body is 422 with Novu's Link",
    async run(c) {
      await onTarget(
        c,
        async (before) => {
          const key = `conformance-${Date.now()}`;
          const body = { data: { replay: key } };
          const first = await patch(c, before.subscriberId, body, key);
          const second = await patch(c, before.subscriberId, body, key);
          checkEqual(second.response.headers.get("idempotency-replay"), "true", "Idempotency-Replay on the retry");
          checkEqual(second.data, first.data, "replayed body");
          checkEqual(second.data?.__v, before.__v + 1, "__v after two identical requests");
          checkEqual(first.response.headers.get("idempotency-key"), key, "Idempotency-Key on the first answer");
          checkEqual(second.response.headers.get("idempotency-key"), key, "Idempotency-Key on the replay");
          const reused = await c.raw(`/v2/subscribers/${encodeURIComponent(before.subscriberId)}`, {
            method: "PATCH",
            headers: { "content-type": "application/json", "idempotency-key": key },
            body: JSON.stringify({ data: { replay: "something else" } }),
          });
          checkEqual(reused.headers.get("idempotency-key"), key, "Idempotency-Key on the 422");
          checkEqual(
            reused.headers.get("link"),
            "https://docs.novu.co/additional-resources/idempotency",
            "Link on the 422",
          );
          await c.expectError(reused, 422, `Request with key "${key}" is being reused for a different body`);
        },
        ["data"],
      );
    },
  },
  {
    id: "patch.not-found",
    level: "behaviour",
    writes: true,
    text: "An unknown subscriberId is answered 404 `Subscriber <id> was not found`",
    async run(c) {
      const id = `no-such-subscriber-${Date.now()}`;
      const response = await c.raw(`/v2/subscribers/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      await c.expectError(response, 404, `Subscriber ${id} was not found`);
    },
  },
  {
    id: "patch.bad-input",
    level: "behaviour",
    writes: true,
    text: "Malformed JSON is 400, a non-JSON body 415, an idempotency key over 255 characters 400 (Novu's message), an invalid email or an unknown time zone 422",
    async run(c) {
      const target = await anySubscriber(c);
      const path = `/v2/subscribers/${encodeURIComponent(target.subscriberId)}`;
      const json = { "content-type": "application/json" };
      await c.expectError(await c.raw(path, { method: "PATCH", headers: json, body: "{oops" }), 400);
      await c.expectError(
        await c.raw(path, { method: "PATCH", headers: { "content-type": "text/plain" }, body: "x" }),
        415,
      );
      await c.expectError(
        await c.raw(path, { method: "PATCH", headers: { ...json, "idempotency-key": "k".repeat(256) }, body: "{}" }),
        400,
        c.exampleMessage("BadRequestIdempotencyKeyTooLong"),
      );
      const invalid = await c.expectError(
        await c.raw(path, { method: "PATCH", headers: json, body: '{"email":"nope"}' }),
        422,
      );
      check(invalid.errors?.["body.email"], "errors has no body.email entry");
      // A time zone of the right shape that does not exist: the schema's pattern passes it, the IANA database does not.
      const zone = await c.expectError(
        await c.raw(path, { method: "PATCH", headers: json, body: '{"timezone":"Mars/Olympus_Mons"}' }),
        422,
      );
      const entry = zone.errors?.["body.timezone"];
      check(entry, "errors has no body.timezone entry for the time zone Mars/Olympus_Mons");
      check(entry.messages.length > 0 && entry.messages.every((m) => m.length > 0), "body.timezone has no message");
      checkEqual(entry.value, "Mars/Olympus_Mons", "the value of body.timezone");
    },
  },
];
