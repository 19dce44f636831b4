/** The rows the store writes in bulk; the demo generator produces them. */
import type { ChannelSettings, ChannelType, JobType, SeverityLevel } from "../../generated/schema.js";

/** A subscribers row as the bulk insert takes it (column names, JSON-ready values). */
export interface SubscriberRow {
  id: string;
  environment_id: string;
  organization_id: string;
  subscriber_id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  avatar: string | null;
  locale: string | null;
  timezone: string | null;
  channels: ChannelSettings[];
  topics: string[];
  is_online: boolean | null;
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

/** A notifications row as the bulk insert takes it; `details` holds what the answer shows beyond the columns. */
export interface NotificationRow {
  id: string;
  environment_id: string;
  organization_id: string;
  subscriber_id: string;
  transaction_id: string;
  template_id: string;
  digested_notification_id: string | null;
  channels: ChannelType[];
  severity: SeverityLevel | null;
  topic_keys: string[];
  created_at: string;
  updated_at: string;
  details: Record<string, unknown>;
}
