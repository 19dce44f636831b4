/**
 * The columns a subscriber's answer is built from (not the lowercase copies the filters search), and how a search page
 * reads them: its times as PostgreSQL's text (`timeText`), which `toIso` turns into the answer's form by moving a few
 * characters, where the driver would parse each into a Date and the answer would format it again (about 1 µs a time,
 * three times a subscriber: 7% of the server's thread on an unfiltered search, D69).
 */
import { type Selectable, sql } from "kysely";
import type { SubscribersTable } from "./schema.js";

export const answerColumns = [
  "id",
  "environment_id",
  "organization_id",
  "subscriber_id",
  "first_name",
  "last_name",
  "email",
  "phone",
  "avatar",
  "locale",
  "timezone",
  "channels",
  "topics",
  "is_online",
  "last_online_at",
  "version",
  "data",
  "deleted",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof SubscribersTable)[];

const timeColumns = ["last_online_at", "created_at", "updated_at"] as const;
type TimeColumn = (typeof timeColumns)[number];

/**
 * A row of the answer's columns: its times as the driver reads them (Date), as `to_jsonb` writes them, or as
 * `timeText` reads them.
 */
export type AnswerRow = Omit<Pick<Selectable<SubscribersTable>, (typeof answerColumns)[number]>, TimeColumn> & {
  [Column in TimeColumn]: Column extends "last_online_at" ? Date | string | null : Date | string;
};

/**
 * A time column as PostgreSQL writes it (`2026-11-30 12:34:56.789+00` in a session on UTC): the text it sends for a
 * time anyway, so PostgreSQL does no more work than for the column itself (formatting it in SQL with `to_char` cost
 * it as much as the server saved, measured).
 */
export function timeText(column: TimeColumn) {
  return sql<string>`${sql.ref(column)}::text`.as(column);
}

/** The answer's columns as a search page reads them: its times as `timeText`. */
export const searchPageColumns = [
  ...(answerColumns.filter((column) => !(timeColumns as readonly string[]).includes(column)) as Exclude<
    (typeof answerColumns)[number],
    TimeColumn
  >[]),
  ...timeColumns.map((column) => timeText(column)),
];
