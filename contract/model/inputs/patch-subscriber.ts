/** The inputs of PATCH /v2/subscribers/{subscriberId} (patchSubscriber), declared once: see kinds.ts. */

import { messages } from "../messages.js";
import type { Random } from "../random.js";
import { isTimeZone } from "../time-zone.js";
import type { BodyField, ModelData, OperationInputs } from "./kinds.js";

const live = (data: ModelData) => data.subscribers.filter((s) => !s.deleted);

/** A text field of the subscriber, replaced as sent; samples always include clearing it. */
function textField(meaning: string, samples: (data: ModelData) => (string | null)[]): BodyField<string | null> {
  return { kind: "field", merge: "replace", meaning, cost: "cheap", samples: (data) => [...samples(data), null] };
}

/** `a.b@Example.COM`: a stored e-mail with its case changed, as clients send them. */
const mixedCase = (email: string) => email.replace(/^(.)|@(.)/g, (match) => match.toUpperCase());

export const patchSubscriberInputs = {
  query: {},
  path: {
    subscriberId: {
      kind: "id",
      meaning: "The subscriber to change, by its `subscriberId`.",
      cost: "cheap",
      samples: (data: ModelData, random: Random) => [
        ...random.sample(
          live(data).map((s) => s.subscriberId),
          2,
        ),
        ...random.sample(
          data.subscribers.filter((s) => s.deleted).map((s) => s.subscriberId),
          1,
        ),
        "nobody",
      ],
    },
  },
  body: {
    firstName: textField("First name.", () => ["", "Émile", "o'Neil %_"]),
    lastName: textField("Last name.", () => ["", "Ng", "Øster-Ågård"]),
    email: textField("E-mail address, stored as sent (case and all).", (data) => [
      "Ada.Lovelace@Example.COM",
      ...live(data)
        .flatMap((s) => (s.email ? [mixedCase(s.email), s.email.toLowerCase()] : []))
        .slice(0, 2),
    ]),
    phone: textField("Phone number.", () => ["", "+4930123456", "555_0100"]),
    avatar: textField("Avatar URL.", () => ["", "https://example.com/avatar.png"]),
    timezone: {
      ...textField("IANA time zone name; aliases (`US/Pacific`) are stored as sent.", () => [
        "Europe/Berlin",
        "UTC",
        "Etc/UTC",
        "US/Pacific",
        "Asia/Calcutta",
      ]),
      refuse: (zone: string | null) => (zone !== null && !isTimeZone(zone) ? messages.timeZoneUnknown : undefined),
    },
    locale: textField("Locale (`en-US` or `en_US`), stored as sent.", () => ["en_US", "en-US", "zh-Hant-TW"]),
    data: {
      kind: "field",
      merge: "replace",
      meaning: "Custom data: an object that replaces the stored one whole.",
      cost: "cheap",
      samples: () => [{}, { plan: "pro" }, { nested: { list: [1, "two", null] }, ü: true }, null],
    },
  },
  refusals: [],
} satisfies OperationInputs<"patchSubscriber">;
