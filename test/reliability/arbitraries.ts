/**
 * fast-check arbitraries derived from the bundled spec: for every parameter and body field, values its schema
 * accepts and values it must refuse, so that a fuzzed request knows whether it should succeed.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { type JsonObject, parametersOf, resolve, spec } from "../support/spec.js";

export interface Generated<T> {
  value: T;
  valid: boolean;
}

type Schema = JsonObject & {
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  items?: unknown;
  properties?: Record<string, unknown>;
};

const isDateTime = (fullFormats["date-time"] as { validate: (text: string) => boolean }).validate;
const digits = (n: number, min: number, max: number) =>
  fc.integer({ min, max }).map((value) => String(value).padStart(n, "0"));

/** RFC 3339-like texts built from their parts; the format's own check says which it admits. */
export function rfc3339Text(): fc.Arbitrary<string> {
  const offset = fc.oneof(
    fc.constantFrom("Z", "z"),
    fc
      .tuple(fc.constantFrom("+", "-"), digits(2, 0, 23), fc.constantFrom("", ":", "x"), digits(2, 0, 59))
      .map(([sign, hours, colon, minutes]) =>
        colon === "x" ? `${sign}${hours}` : `${sign}${hours}${colon}${minutes}`,
      ),
  );
  return fc
    .record({
      year: fc.oneof(digits(4, 0, 9999), fc.constantFrom("0000", "0001", "1970", "9999")),
      month: digits(2, 1, 12),
      day: digits(2, 1, 31),
      separator: fc.constantFrom("T", "t", " "),
      time: fc.oneof(
        fc.tuple(digits(2, 0, 23), digits(2, 0, 59), digits(2, 0, 59)).map((parts) => parts.join(":")),
        fc.constant("23:59:60"),
      ),
      fraction: fc.oneof(fc.constant(""), fc.stringMatching(/^\.\d{1,12}$/)),
      offset,
    })
    .map(
      ({ year, month, day, separator, time, fraction, offset: zone }) =>
        `${year}-${month}-${day}${separator}${time}${fraction}${zone}`,
    );
}

/** Strings that break naive SQL, LIKE, JSON or shell handling. ASCII, so that case folding is unambiguous. */
const nasty = [
  "%",
  "_",
  "%_%",
  "'",
  "\\",
  "\\%",
  "'; DROP TABLE subscribers; --",
  '{"$ne":1}',
  "$gt",
  "a%b",
  "../..",
  "*",
  "()",
];
const unicode = ["Łódź", "😀", "Ωμέγα", "\u0000x", "\u202ereversed", "中文", "ß"];

/**
 * One character of any kind a client can send and PostgreSQL can store: printable ASCII most often, then C0 and C1
 * controls (U+0000 aside), and any Unicode scalar value (astral ones as surrogate pairs).
 */
const storableCharacter = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x01, max: 0x1f }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x7f, max: 0x9f }).map((code) => String.fromCharCode(code)) },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: 0xa0, max: 0x10ffff })
      .filter((code) => code < 0xd800 || code > 0xdfff)
      .map((code) => String.fromCodePoint(code)),
  },
);

/** What PostgreSQL cannot store: U+0000 (anywhere), and, in JSON bodies, an unpaired surrogate. */
const nul = fc.constant("\u0000");
const loneSurrogate = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdbff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0xdc00, max: 0xdfff }).map((code) => String.fromCharCode(code)),
);

/** `text` with `poison` inserted somewhere: the same text made unstorable. */
function poisoned(text: fc.Arbitrary<string>, poison: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(text, poison, fc.nat()).map(([value, bad, at]) => {
    const cut = value.length === 0 ? 0 : at % (value.length + 1);
    // Never split a surrogate pair: that would make a second fault of its own.
    const safeCut = /[\uDC00-\uDFFF]/.test(value[cut] ?? "") ? cut - 1 : cut;
    return value.slice(0, safeCut) + bad + value.slice(safeCut);
  });
}

const types = (schema: Schema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** Storable text of every kind, nasty strings included, within the schema's length bounds (in UTF-16 units). */
function text(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 60, 60);
  return fc.oneof(
    fc
      .string({ minLength, maxLength, unit: storableCharacter })
      .filter((s) => s.length >= minLength && s.length <= maxLength),
    fc.constantFrom(...nasty.filter((s) => s.length >= minLength && s.length <= maxLength)),
  );
}

/** A value the schema accepts. */
export function validValue(raw: unknown): fc.Arbitrary<unknown> {
  const schema = resolve<Schema>(raw);
  if (schema.oneOf) return fc.oneof(...(schema.oneOf as unknown[]).map(validValue));
  const kinds = types(schema);
  const options: fc.Arbitrary<unknown>[] = [];
  if (kinds.includes("null")) options.push(fc.constant(null));
  if (schema.enum) options.push(fc.constantFrom(...schema.enum));
  else if (kinds.includes("integer"))
    options.push(fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 }));
  else if (kinds.includes("boolean")) options.push(fc.boolean());
  else if (kinds.includes("array")) {
    options.push(fc.array(validValue(schema.items), { minLength: 1, maxLength: Math.min(schema.maxItems ?? 5, 5) }));
  } else if (kinds.includes("object") && schema.properties) {
    // The fields the schema declares, each present or not (the required ones always).
    const fields = Object.fromEntries(
      Object.entries(schema.properties).map(([name, field]) => [name, validValue(field)]),
    );
    options.push(fc.record(fields, { requiredKeys: (schema.required as string[] | undefined) ?? [] }));
  } else if (kinds.includes("object")) {
    options.push(
      fc.dictionary(
        fc.string({ minLength: 1, maxLength: 8, unit: storableCharacter }),
        fc.oneof(fc.string({ unit: storableCharacter }), fc.integer(), fc.boolean()),
        { maxKeys: 4 },
      ),
    );
  } else if (kinds.includes("string")) {
    if (schema.format === "date-time") {
      options.push(
        fc
          .date({ min: new Date("2025-01-01"), max: new Date("2027-01-01"), noInvalidDate: true })
          .map((d) => d.toISOString()),
        // Every form the format admits, not only what toISOString writes: leap seconds, `+01`, `+0130`, a space,
        // lower case, long fractions, the years 0000 and 9999 (round three found 500s for the first three).
        rfc3339Text().filter((text) => isDateTime(text)),
      );
    } else if (schema.format === "email")
      options.push(fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 320)));
    else if (schema.pattern)
      options.push(
        fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((s) => s.length <= (schema.maxLength ?? 64) && s.length >= (schema.minLength ?? 0)),
      );
    else options.push(text(schema));
  }
  if (options.length === 0) throw new Error(`no arbitrary for schema ${JSON.stringify(schema).slice(0, 200)}`);
  return fc.oneof(...options);
}

/** A value the schema refuses (or undefined when every string is acceptable, as for a free-text field). */
export function invalidValue(raw: unknown): fc.Arbitrary<unknown> | undefined {
  const schema = resolve<Schema>(raw);
  if (schema.oneOf) return invalidValue((schema.oneOf as unknown[])[0]);
  const kinds = types(schema);
  if (schema.enum)
    return fc
      .constantFrom("", "ascending", "EMAIL", "urgent", "fax", "none;DROP", ...unicode)
      .filter((v) => !schema.enum?.includes(v));
  if (kinds.includes("integer")) {
    return fc.oneof(
      ...(schema.maximum !== undefined ? [fc.integer({ min: schema.maximum + 1, max: schema.maximum + 10_000 })] : []),
      ...(schema.minimum !== undefined ? [fc.integer({ min: schema.minimum - 10_000, max: schema.minimum - 1 })] : []),
      // JavaScript's Number() accepts "0x10" and "1e1" (so does Novu); these it does not, or not as a safe integer.
      fc.constantFrom("ten", "1.5", "", "NaN", "Infinity", "-Infinity", "1e20", "-", "5abc"),
    );
  }
  if (kinds.includes("boolean")) return fc.constantFrom("maybe", "yes", "2", "");
  if (kinds.includes("array")) {
    const item = invalidValue(schema.items);
    const tooMany = fc.array(validValue(schema.items), {
      minLength: (schema.maxItems ?? 100) + 1,
      maxLength: (schema.maxItems ?? 100) + 3,
    });
    return item
      ? fc.oneof(
          item.map((v) => [v]),
          tooMany,
        )
      : tooMany;
  }
  if (kinds.includes("string")) {
    if (schema.format === "date-time")
      return fc.constantFrom("yesterday", "2026-13-01T00:00:00Z", "2026-02-30", "1700000000", "");
    if (schema.format === "email") return fc.constantFrom("not-an-email", "a@", "@b.c", "a b@c.d");
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern);
      return fc
        .constantFrom(
          "xyz",
          "ZZZZZZZZZZZZZZZZZZZZZZZZ",
          "66b7e1d0c3a2b1f0e9d8c7b",
          "66B7E1D0C3A2B1F0E9D8C7B6",
          "",
          "en_US",
          "Europe/",
          ...unicode,
        )
        .filter((candidate) => !pattern.test(candidate));
    }
    const tooShort = schema.minLength ? [fc.constant("")] : [];
    const tooLong = schema.maxLength ? [fc.constant("x".repeat(schema.maxLength + 1))] : [];
    const shorter = { ...schema, maxLength: Math.min(schema.maxLength ?? 60, 60) - 1 };
    return fc.oneof(...tooShort, ...tooLong, poisoned(text(shorter), nul));
  }
  if (kinds.includes("object")) {
    // A key or a value that cannot be stored, somewhere in an otherwise fine object.
    const poison = fc.oneof(nul, loneSurrogate);
    const where = fc.boolean();
    return fc
      .tuple(
        validValue(schema).filter((v) => v !== null),
        poisoned(text({}), poison),
        where,
      )
      .map(([object, bad, inKey]) => ({ ...(object as object), ...(inKey ? { [bad]: 1 } : { k: { nested: [bad] } }) }));
  }
  return undefined;
}

/** A value of the right schema or, about one time in four, a wrong one; labelled. */
export function maybeValid(schema: unknown): fc.Arbitrary<Generated<unknown>> {
  const bad = invalidValue(schema);
  const good = validValue(schema).map((value) => ({ value, valid: true }));
  return bad
    ? fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: bad.map((value) => ({ value, valid: false })) })
    : good;
}

export interface QueryCase {
  params: [string, string][];
  valid: boolean;
  values: Record<string, unknown>;
}

function serialise(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(serialise);
  if (value === null) return ["null"];
  return [typeof value === "object" ? JSON.stringify(value) : String(value)];
}

/**
 * A query case written by hand, as `queryFor` draws them: each value sent as it is, a list as one parameter per item. A
 * property's `examples` use it to send, whatever the draws, a request of each kind its tally expects.
 */
export function queryCase(values: Record<string, string | string[]>, valid = true): QueryCase {
  return {
    params: Object.entries(values).flatMap(([name, value]) =>
      serialise(value).map((item) => [name, item] as [string, string]),
    ),
    valid,
    values,
  };
}

/** The Authorization header of the given key, as `authorization` draws it most of the time. */
export const goodAuthorization = (key: string): AuthCase => ({ header: `ApiKey ${key}`, valid: true });
/** No Authorization header at all. */
export const noAuthorization: AuthCase = { header: undefined, valid: false };
/** No Idempotency-Key, as `idempotencyKey` draws it most of the time. */
export const noIdempotencyKey: Generated<string | undefined> = { value: undefined, valid: true };

/** What a query fuzzer's property draws: the query, the Authorization header and the Idempotency-Key. */
export type QueryRequest = [QueryCase, AuthCase, Generated<string | undefined>];

/**
 * One query request of each kind a query fuzzer's tally expects (fuzz-check.ts, StatusTally), for its `examples`: a
 * plain one (200), the operation's own 400 (`refused400`), one without Authorization (401), a limit of 0 (422).
 */
export function queryExamples(goodKey: string, refused400: Record<string, string>): QueryRequest[] {
  const good = goodAuthorization(goodKey);
  return [
    [queryCase({}), good, noIdempotencyKey],
    [queryCase(refused400), good, noIdempotencyKey],
    [queryCase({}), noAuthorization, noIdempotencyKey],
    [queryCase({ limit: "0" }, false), good, noIdempotencyKey],
  ];
}

/** A query string for the operation: each declared parameter absent, valid or invalid, and sometimes an unknown one. */
export function queryFor(operationId: string): fc.Arbitrary<QueryCase> {
  const parameters = parametersOf(operationId).filter((p) => p.in === "query");
  const fields = Object.fromEntries(
    parameters.map((p) => [String(p.name), fc.option(maybeValid(p.schema), { freq: 2, nil: undefined })]),
  );
  // Unknown names, bracket keys (`email[0]`) and prototype names among them (round three found a 422 without its
  // `value` and filters silently dropped).
  const unknown = fc.option(
    fc.constantFrom(
      "colour",
      "sort",
      "$where",
      "limit[]",
      "__proto__",
      "constructor[x]",
      "hasOwnProperty[x]",
      "email[toString]",
      "email[__proto__]",
      "channels[__proto__]",
      "__proto__[email]",
      "email[0]",
      "toString",
    ),
    {
      freq: 8,
      nil: undefined,
    },
  );
  return fc.record({ fields: fc.record(fields), unknown }).map(({ fields: chosen, unknown: extra }) => {
    const params: [string, string][] = [];
    const values: Record<string, unknown> = {};
    let valid = extra === undefined;
    for (const [name, generated] of Object.entries(chosen)) {
      if (!generated) continue;
      values[name] = generated.value;
      valid &&= generated.valid;
      for (const item of serialise(generated.value)) params.push([name, item]);
    }
    if (extra) params.push([extra, "1"]);
    return { params, valid, values };
  });
}

/** A PATCH body: every field absent, valid or invalid, sometimes an unknown field. */
export function patchBody(): fc.Arbitrary<Generated<Record<string, unknown>>> {
  const schema = resolve<Schema>(
    (spec.components as JsonObject).schemas &&
      ((spec.components as JsonObject).schemas as JsonObject).PatchSubscriberRequest,
  );
  const properties = schema.properties ?? {};
  // In a JSON body an unpaired surrogate reaches the server (as "\ud800"), so any string field may carry one.
  const withLoneSurrogates = (field: unknown): fc.Arbitrary<Generated<unknown>> =>
    types(resolve<Schema>(field)).includes("string")
      ? fc.oneof(
          { weight: 9, arbitrary: maybeValid(field) },
          {
            weight: 1,
            arbitrary: poisoned(
              validValue(field).map((v) => (typeof v === "string" ? v : "")),
              loneSurrogate,
            ).map((value) => ({ value, valid: false })),
          },
        )
      : maybeValid(field);
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, field]) => [
      name,
      fc.option(withLoneSurrogates(field), { freq: 2, nil: undefined }),
    ]),
  );
  const unknown = fc.option(fc.constantFrom("fristName", "_id", "__v", "subscriberId", "deleted"), {
    freq: 6,
    nil: undefined,
  });
  return fc.record({ fields: fc.record(fields), unknown }).map(({ fields: chosen, unknown: extra }) => {
    const value: Record<string, unknown> = {};
    let valid = extra === undefined;
    for (const [name, generated] of Object.entries(chosen)) {
      if (!generated) continue;
      value[name] = generated.value;
      valid &&= generated.valid;
    }
    if (extra) value[extra] = "surprise";
    return { value, valid };
  });
}

/**
 * A header value of every kind HTTP allows: visible ASCII, spaces and tabs inside, and obs-text (bytes 0x80-0xFF,
 * read as Latin-1). U+0000, CR and LF never get past an HTTP client or Node's parser.
 */
export const headerValue = (maxLength: number) =>
  fc
    .string({
      minLength: 1,
      maxLength,
      unit: fc
        .oneof(
          { weight: 8, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
          { weight: 1, arbitrary: fc.constantFrom(0x20, 0x09) },
          { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
        )
        .map((code) => String.fromCharCode(code)),
    })
    .map((value) => value.trim())
    .filter((value) => value.length > 0);

export type AuthCase = { header: string | undefined; valid: boolean };

/** The Authorization header: mostly right, sometimes missing, malformed, empty or unknown. */
export function authorization(goodKey: string): fc.Arbitrary<AuthCase> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ header: `ApiKey ${goodKey}`, valid: true }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          undefined,
          "",
          "ApiKey",
          "ApiKey ",
          `apikey ${goodKey}`,
          `Bearer ${goodKey}`,
          `ApiKey ${"0".repeat(32)}`,
          "ApiKey '; --",
          "Basic Zm9vOmJhcg==",
          `ApiKey ${goodKey} extra`,
        )
        .map((header) => ({ header, valid: false })),
    },
    { weight: 1, arbitrary: headerValue(80).map((header) => ({ header, valid: false })) },
    { weight: 1, arbitrary: headerValue(80).map((value) => ({ header: `ApiKey ${value}`, valid: false })) },
  );
}

/**
 * The idempotency-key header: usually absent, sometimes fine (of any characters a header allows), sometimes over 255.
 * A key of anything but printable ASCII (a tab, a byte beyond 0x7F) is refused (400).
 */
export function idempotencyKey(): fc.Arbitrary<Generated<string | undefined>> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ value: undefined, valid: true }) },
    { weight: 2, arbitrary: fc.uuid().map((value) => ({ value, valid: true })) },
    { weight: 1, arbitrary: headerValue(255).map((value) => ({ value, valid: /^[ -~]+$/.test(value) })) },
    { weight: 1, arbitrary: fc.integer({ min: 256, max: 400 }).map((n) => ({ value: "k".repeat(n), valid: false })) },
  );
}
