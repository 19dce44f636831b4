/**
 * A notification's answer, in two parts (D59): its own fields, which never change once it is written and are kept as
 * JSON text in its row (`answer`), and the summaries of its subscriber and workflow, which a PATCH or a workflow's
 * change must show at once, built from their own rows each time. A page is the texts concatenated, with no JSON
 * parsed or stringified for the notifications' own fields. Rows written before the column (`answer` NULL, `details`
 * kept) are built the typed way from their columns, to the same bytes.
 */
import type {
  ChannelType,
  Notification,
  NotificationSubscriber,
  NotificationTemplate,
  SeverityLevel,
} from "@novu-query/contract/types";
import type { Selectable } from "kysely";
import type { NotificationsTable } from "./schema.js";
import { toIso } from "./sql-helpers.js";

/**
 * The columns a notification's own fields are built from: the table's (schema.ts) but those the answer does not show
 * as they are, with the times as a row read back has them (Date) or as the bulk insert takes them (ISO text), and its
 * details in whatever form the writer has them.
 */
export type NotificationColumns = Omit<
  Selectable<NotificationsTable>,
  "topic_keys" | "filter_terms" | "created_at" | "updated_at" | "details" | "answer"
> & {
  created_at: Date | string;
  updated_at: Date | string;
  /** What the answer shows beyond the columns: jobs, payload, tags, controls, to, topics, critical, contextKeys. */
  details: unknown;
};

/** The subscriber's and the workflow's columns a page reads beside each notification (joined, so null when gone). */
export interface LiveColumns {
  s_id: string | null;
  s_subscriber_id: string | null;
  s_first_name: string | null;
  s_last_name: string | null;
  s_email: string | null;
  s_phone: string | null;
  w_id: string | null;
  w_name: string | null;
  w_origin: string | null;
  w_triggers: unknown[] | null;
}

/**
 * The object without its null and undefined fields, in the same order. A plain loop: `Object.fromEntries(
 * Object.entries(...).filter(...))` took 2.3-3.3 µs a call against 0.5 (measured on a list's page).
 */
function definedOnly<T extends object>(value: T): T {
  const defined: Record<string, unknown> = {};
  for (const key in value) {
    const field = value[key];
    if (field !== null && field !== undefined) defined[key] = field;
  }
  return defined as T;
}

type OwnFields = Omit<Notification, "subscriber" | "template">;

/** The notification's own fields, in the answer's order (its subscriber and workflow come after them). */
function ownFields(row: NotificationColumns): OwnFields {
  const details = (row.details ?? {}) as Omit<Notification, "channels">;
  return definedOnly({
    _id: row.id,
    _environmentId: row.environment_id,
    _organizationId: row.organization_id,
    _subscriberId: row.subscriber_id,
    transactionId: row.transaction_id,
    _templateId: row.template_id ?? undefined,
    _digestedNotificationId: row.digested_notification_id ?? undefined,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    channels: row.channels as ChannelType[],
    jobs: details.jobs ?? [],
    payload: details.payload,
    tags: details.tags,
    controls: details.controls,
    to: details.to,
    topics: details.topics,
    // Novu's feed mapper: `entity.severity ?? SeverityLevelEnum.NONE`.
    severity: (row.severity ?? "none") as SeverityLevel,
    critical: details.critical,
    contextKeys: details.contextKeys,
  });
}

function subscriberOf(row: Omit<LiveColumns, "w_triggers">): NotificationSubscriber | undefined {
  if (!row.s_id || !row.s_subscriber_id) return undefined;
  return definedOnly({
    _id: row.s_id,
    subscriberId: row.s_subscriber_id,
    firstName: row.s_first_name ?? undefined,
    lastName: row.s_last_name ?? undefined,
    email: row.s_email ?? undefined,
    phone: row.s_phone ?? undefined,
  });
}

function templateOf(row: LiveColumns): NotificationTemplate | undefined {
  if (!row.w_id || row.w_name === null) return undefined;
  return definedOnly({
    _id: row.w_id,
    name: row.w_name,
    origin: (row.w_origin ?? undefined) as NotificationTemplate["origin"],
    triggers: (row.w_triggers ?? []) as NotificationTemplate["triggers"],
  });
}

/** The notification built the typed way: its own fields, then its subscriber's and workflow's summaries. */
export function toNotification(row: NotificationColumns & LiveColumns): Notification {
  return definedOnly({ ...ownFields(row), subscriber: subscriberOf(row), template: templateOf(row) });
}

/**
 * The text kept in a notification's `answer` column: the JSON of its own fields without the closing brace, so that
 * the summaries are appended as they are read (`answerText`). It always holds `_id`, so what is appended starts with
 * a comma.
 */
export function storedAnswer(row: NotificationColumns): string {
  return JSON.stringify(ownFields(row)).slice(0, -1);
}

/**
 * The summaries' columns as the store reads them: the workflow's triggers as the text of their jsonb
 * (`triggers::text`), which the driver hands over as it is, where it would parse a jsonb column on every read.
 */
export interface LiveText extends Omit<LiveColumns, "w_triggers"> {
  w_triggers_text: string | null;
}

/** The row as the typed way takes it: the triggers parsed, every other column as it is. */
export function liveColumnsOf<Row extends LiveText>({
  w_triggers_text,
  ...row
}: Row): Omit<Row, "w_triggers_text"> & LiveColumns {
  return { ...row, w_triggers: w_triggers_text === null ? null : (JSON.parse(w_triggers_text) as unknown[]) };
}

/** A workflow's summary text, with the columns it was built from. */
interface TemplateText {
  name: string | null;
  origin: string | null;
  triggers: string | null;
  text: string | undefined;
}

/** Most workflows whose summary is kept; past it the kept ones are dropped and built again as they are read. */
const maxTemplateTexts = 10_000;
const templateTexts = new Map<string, TemplateText>();

/**
 * A workflow's summary as JSON text, built the typed way (`templateOf`) once per workflow and kept while the columns
 * it is built from read the same: a page's notifications share a few workflows, and parsing their triggers and
 * stringifying the summary again for every row cost a page of ten about 75 µs of the server's thread (measured, D69).
 * A workflow changed in the database reads differently, so its next summary is built from its new columns.
 */
function templateText(live: LiveText): string | undefined {
  if (!live.w_id) return undefined;
  const kept = templateTexts.get(live.w_id);
  if (
    kept !== undefined &&
    kept.name === live.w_name &&
    kept.origin === live.w_origin &&
    kept.triggers === live.w_triggers_text
  ) {
    return kept.text;
  }
  const template = templateOf(liveColumnsOf(live));
  const text = template && JSON.stringify(template);
  if (templateTexts.size >= maxTemplateTexts) templateTexts.clear();
  templateTexts.set(live.w_id, { name: live.w_name, origin: live.w_origin, triggers: live.w_triggers_text, text });
  return text;
}

/** A notification's answer from its kept text and its subscriber's and workflow's rows: the typed way's bytes. */
export function answerText(stored: string, live: LiveText): string {
  const subscriber = subscriberOf(live);
  const template = templateText(live);
  return `${stored}${subscriber ? `,"subscriber":${JSON.stringify(subscriber)}` : ""}${
    template ? `,"template":${template}` : ""
  }}`;
}
