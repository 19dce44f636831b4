/**
 * The instant a query's date-time names, for every text the spec's `format: date-time` admits (ajv-formats' RFC 3339
 * check): a leap second (`23:59:60`), an offset without minutes (`+01`) or without a colon (`+0130`), a space or a
 * lower-case `t`/`z`, the year 0000. JavaScript's Date parses none of the first four, and PostgreSQL holds no year 0.
 */

/**
 * The instants a store can hold, and every date-time the format admits lies within once clamped: the years 1 to 9999
 * (PostgreSQL reads no year 0). Parsed, not `Date.UTC(1, 0, 1)`, which is 1901: `Date.UTC` reads years 0-99 as 1900-1999.
 */
const earliest = Date.parse("0001-01-01T00:00:00.000Z");
const latest = Date.parse("9999-12-31T23:59:59.999Z");

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[tT ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([zZ])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/**
 * The instant, in milliseconds since the epoch (NaN for a text the format does not admit). A leap second is the last
 * millisecond of its minute: `23:59:60Z` is within its day, after `23:59:59.998Z`.
 */
export function dateTimeMilliseconds(text: string): number {
  const match = rfc3339.exec(text);
  if (!match) return Number.NaN;
  const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHours = "0", offsetMinutes = "0"] =
    match;
  const leap = second === "60";
  const millis = leap ? 999 : Math.floor(Number(`0${fraction || ".0"}`) * 1000);
  const utc = new Date(0);
  utc.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  utc.setUTCHours(Number(hour), Number(minute), leap ? 59 : Number(second), millis);
  const offset = zulu ? 0 : (sign === "-" ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  return utc.getTime() - offset;
}

/** The instant as a Date within what a store holds (years 1 to 9999): the same rows lie on either side of it. */
export function storableInstant(milliseconds: number): Date {
  return new Date(Math.min(latest, Math.max(earliest, milliseconds)));
}

/** The canonical text of a date-time the format admits: the same instant in UTC with milliseconds, as stores hold it. */
export function canonicalDateTime(text: string): string {
  const milliseconds = dateTimeMilliseconds(text);
  return Number.isNaN(milliseconds) ? text : storableInstant(milliseconds).toISOString();
}

// Stryker disable all: the forms below are the conformance suite's inputs (other texts of one instant), which no
// implementation runs: a mutant here changes what the suite sends, not what a service answers.
const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** The instant in local time at an offset of `minutes`, as RFC 3339 writes it, with the offset written `written`. */
function atOffset(instant: Date, minutes: number, written: "colon" | "no-colon" | "hours"): string {
  const local = new Date(instant.getTime() + minutes * 60_000);
  const sign = minutes < 0 ? "-" : "+";
  const hours = pad(Math.trunc(Math.abs(minutes) / 60));
  const rest = pad(Math.abs(minutes) % 60);
  const offset = { colon: `${sign}${hours}:${rest}`, "no-colon": `${sign}${hours}${rest}`, hours: `${sign}${hours}` }[
    written
  ];
  return `${local.toISOString().slice(0, 23)}${offset}`;
}

/**
 * Other texts for the instant of `iso` (UTC with milliseconds) that the spec's `format: date-time` admits: other
 * offsets (with a colon, without, hours only), a lower-case `t` and `z`, a space for the `T`, more digits of the
 * fraction, none when it is zero, and `23:59:60` for the last millisecond of a day. Each names the same instant.
 */
export function dateTimeForms(iso: string): string[] {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return [];
  const utc = instant.toISOString();
  const forms = [
    utc.replace("T", "t").replace("Z", "z"),
    utc.replace("T", " "),
    `${utc.slice(0, 23)}000Z`,
    `${utc.slice(0, 23)}+00:00`,
    atOffset(instant, 60, "colon"),
    atOffset(instant, 60, "hours"),
    atOffset(instant, 330, "no-colon"),
    atOffset(instant, -270, "colon"),
  ];
  if (utc.endsWith(".000Z")) forms.push(`${utc.slice(0, 19)}Z`);
  if (utc.endsWith("T23:59:59.999Z")) forms.push(`${utc.slice(0, 11)}23:59:60Z`);
  return forms;
}
// Stryker restore all
