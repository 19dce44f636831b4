/**
 * The words the demo data (server/demo/generate.ts) and the factories (factories.ts) are made of, in one place:
 * workflows with their steps, severities and payload variables, topics, where people live (locale, time zone and
 * phone plan that go together), e-mail domains, plans, and which providers send each kind of job. Only values the
 * contract's enums declare; only domains reserved for examples (RFC 2606), so no data names a real mailbox.
 *
 * People's names are the one exception: the factories take them from the short lists here (the contract has no
 * dependencies), the demo data from faker, whose thousands of names a million-row data set needs (the benchmark's
 * name searches are sized by them).
 */
import type { ChannelType, JobType, ProviderId, SeverityLevel } from "../generated/schema.js";

export interface Workflow {
  name: string;
  identifier: string;
  origin: "novu-cloud" | "novu-cloud-v1" | "external";
  steps: JobType[];
  /** Severity belongs to the workflow, as in Novu (null: none; the API shows `none`). */
  severity: SeverityLevel | null;
  tags: string[];
  /** The payload variables its trigger carries. */
  variables: string[];
}

export const workflows: readonly Workflow[] = [
  {
    name: "Comment digest",
    identifier: "comment-digest",
    origin: "novu-cloud",
    steps: ["digest", "email"],
    severity: null,
    tags: ["collaboration"],
    variables: ["commentAuthor", "documentTitle"],
  },
  {
    name: "Password changed",
    identifier: "password-changed",
    origin: "novu-cloud",
    steps: ["in_app", "email"],
    severity: "high",
    tags: ["security"],
    variables: [],
  },
  {
    name: "Two-factor code",
    identifier: "two-factor-code",
    origin: "novu-cloud-v1",
    steps: ["sms"],
    severity: "high",
    tags: ["security"],
    variables: ["code"],
  },
  {
    name: "Deploy finished",
    identifier: "deploy-finished",
    origin: "external",
    steps: ["chat", "push"],
    severity: "medium",
    tags: ["engineering"],
    variables: ["service", "version"],
  },
  {
    name: "Invoice ready",
    identifier: "invoice-ready",
    origin: "novu-cloud",
    steps: ["delay", "email", "in_app"],
    severity: "low",
    tags: ["billing"],
    variables: ["amount", "invoiceId"],
  },
  {
    name: "Weekly report",
    identifier: "weekly-report",
    origin: "novu-cloud",
    steps: ["digest", "email"],
    severity: "none",
    tags: ["reports"],
    variables: ["weekOf"],
  },
];

export const topicKeys = ["project-apollo", "release-notes", "billing-alerts", "incident-updates", "product-news"];

/** Where people live: a locale, a time zone and a phone plan that go together; `digits` follow the country code. */
export const places = [
  { locale: "en-US", timezone: "America/New_York", countryCode: "1", digits: 10 },
  { locale: "en-US", timezone: "America/Los_Angeles", countryCode: "1", digits: 10 },
  { locale: "en-GB", timezone: "Europe/London", countryCode: "44", digits: 10 },
  { locale: "de-DE", timezone: "Europe/Berlin", countryCode: "49", digits: 11 },
  { locale: "fr-FR", timezone: "Europe/Paris", countryCode: "33", digits: 9 },
  { locale: "es-ES", timezone: "Europe/Madrid", countryCode: "34", digits: 9 },
  { locale: "nl-NL", timezone: "Europe/Amsterdam", countryCode: "31", digits: 9 },
  { locale: "pt-BR", timezone: "America/Sao_Paulo", countryCode: "55", digits: 11 },
  { locale: "ja-JP", timezone: "Asia/Tokyo", countryCode: "81", digits: 10 },
  { locale: "sv-SE", timezone: "Europe/Stockholm", countryCode: "46", digits: 9 },
  { locale: "pl-PL", timezone: "Europe/Warsaw", countryCode: "48", digits: 9 },
  { locale: "hi-IN", timezone: "Asia/Kolkata", countryCode: "91", digits: 10 },
  { locale: "en-AU", timezone: "Australia/Sydney", countryCode: "61", digits: 9 },
  // Novu accepts `en_US` as well as `en-US`: some clients store it so.
  { locale: "en_US", timezone: "UTC", countryCode: "1", digits: 10 },
] as const;

/** E-mail domains reserved for examples, with how often each is drawn. */
export const emailDomains = [
  { value: "example.com", weight: 6 },
  { value: "example.org", weight: 3 },
  { value: "example.net", weight: 1 },
];

export const plans = ["free", "team", "enterprise"];

/** The job types that deliver a message, each a channel. */
export const channelTypes: readonly ChannelType[] = ["in_app", "email", "sms", "chat", "push"];

/** Which providers send each kind of job (Novu's own for the steps that send nothing). */
export const providersByJob: Record<JobType, ProviderId[]> = {
  email: ["sendgrid", "ses", "postmark", "mailgun"],
  sms: ["twilio", "sns", "plivo"],
  in_app: ["novu"],
  chat: ["slack", "msteams", "discord"],
  push: ["fcm", "apns", "expo"],
  digest: ["novu"],
  delay: ["novu"],
  trigger: ["novu"],
  throttle: ["novu"],
  custom: ["novu"],
  tool: ["tool-webhook"],
  http_request: ["novu"],
};

/** Values the demo's payloads and context keys carry. */
export const documentTitles = [
  "Q3 roadmap",
  "Launch checklist",
  "Design review notes",
  "Onboarding guide",
  "Pricing page copy",
];
export const services = ["checkout-api", "search-indexer", "billing-worker", "web-frontend", "notifications-api"];
export const tenants = ["acme", "globex", "initech", "umbrella"];

/** Names for the factories (see above). */
export const firstNames = [
  "Maya",
  "Liam",
  "Sofia",
  "Noah",
  "Amara",
  "Lucas",
  "Yuki",
  "Mateo",
  "Priya",
  "Elias",
  "Chloé",
  "Jonas",
  "Aisha",
  "Hugo",
  "Ingrid",
  "Kenji",
  "Lena",
  "Omar",
  "Zoe",
  "Rafael",
  "Nadia",
  "Felix",
  "Ana",
  "Tomás",
  "Freya",
  "Arjun",
  "Grace",
  "Malik",
  "Clara",
  "Diego",
  "Hana",
  "Leon",
  "Isabela",
  "Samuel",
  "Emma",
  "Wei",
  "Olivia",
  "Kai",
];
export const lastNames = [
  "Patel",
  "Müller",
  "García",
  "Nguyen",
  "Okafor",
  "Rossi",
  "Tanaka",
  "Dubois",
  "Kowalski",
  "Silva",
  "Johansson",
  "Smith",
  "Kim",
  "Fernández",
  "Novak",
  "Ahmed",
  "Schneider",
  "Moreau",
  "O'Brien",
  "Jensen",
  "Costa",
  "Ivanova",
  "Hernández",
  "Sato",
  "Fischer",
  "Bianchi",
  "Mensah",
  "Van Dijk",
  "Cohen",
  "Lindqvist",
];
