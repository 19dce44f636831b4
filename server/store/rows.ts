/** The rows the store writes in bulk; the demo generator produces them. */
import type { ChannelSettings, ChannelType, JobType, SeverityLevel } from "@novu-query/contract/types";
import type { NotificationsTable, SubscribersTable } from "./schema.js";

/**
 * A subscribers row as the bulk insert takes it: the table's columns (schema.ts), with JSON-ready values where the
 * table's are read as objects or dates, and without the generated lowercase copies.
 */
export interface SubscriberRow
  extends Omit<
    SubscribersTable,
    | "email_search"
    | "phone_search"
    | "name_search"
    | "channels"
    | "last_online_at"
    | "version"
    | "data"
    | "deleted"
    | "created_at"
    | "updated_at"
  > {
  channels: ChannelSettings[];
  last_online_at: string | null;
  version: number;
  data: Record<string, unknown> | null;
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

/** A workflows row as the demo loader writes it. */
export interface WorkflowRow {
  id: string;
  environment_id: string;
  name: string;
  identifier: string;
  origin: "novu-cloud" | "novu-cloud-v1" | "external";
  steps: JobType[];
  severity: SeverityLevel | null;
  tags: string[];
  variables: string[];
}

/**
 * A notifications row as the bulk insert takes it: the table's columns, with the contract's enums, JSON-ready values
 * and without the generated `filter_terms`; `details` holds what the answer shows beyond the columns (the bulk insert
 * keeps them as part of the answer's text, D59).
 */
export interface NotificationRow
  extends Omit<
    NotificationsTable,
    "filter_terms" | "template_id" | "channels" | "severity" | "created_at" | "updated_at" | "details" | "answer"
  > {
  template_id: string;
  channels: ChannelType[];
  severity: SeverityLevel | null;
  created_at: string;
  updated_at: string;
  details: Record<string, unknown>;
}
