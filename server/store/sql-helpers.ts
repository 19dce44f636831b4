import { sql } from "kysely";

/** Escapes LIKE wildcards so that user input is matched literally (PostgreSQL's default escape is a backslash). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** A time as PostgreSQL writes it in a session on UTC: date, time, up to six digits of fraction, `+00`. */
const utcText = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A time as the answers send it (`Date.prototype.toISOString`): a Date formatted; PostgreSQL's text of a time in UTC
 * moved into that form, its fraction cut to milliseconds as the driver's Date cuts it (`timeText` in
 * subscriber-columns.ts); any other text (`to_jsonb`'s, or another time zone's) read as a time and formatted.
 */
export function toIso(value: Date | string): string {
  if (typeof value === "string") {
    const utc = utcText.exec(value);
    if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? "").padEnd(3, "0").slice(0, 3)}Z`;
  }
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * A page bound (a LIMIT or an OFFSET) written into a statement's text rather than bound: a generic plan (D46) costs a
 * bound LIMIT or OFFSET as a tenth of the rows it estimates. Whole numbers the contract checks before the store
 * (limit 1-100, page an int32), so the text is a number and nothing else; anything else is refused here.
 */
export function pageBound(value: number) {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a page bound: ${value}`);
  return sql.lit(value);
}

/**
 * `deleted = false`, written into the statement: the subscribers' partial indexes (`WHERE NOT deleted`) serve only
 * statements whose text implies their predicate. With the value bound, a generic plan cannot use them (a lookup by
 * `subscriberId` became a parallel scan of the table), so PostgreSQL planned every prepared lookup and PATCH anew.
 */
export const liveOnly = sql.lit(false);
