/**
 * The demo's subscribers, one row at a time: created over the last year (one in eight at the same instant as the
 * one before, as a bulk import makes them), with the contact details, channels, topics and data real ones have.
 * Words from the contract's vocabulary; names from faker (vocabulary.ts says why).
 */
import type { Faker } from "@faker-js/faker";
import { vocabulary } from "@novu-query/contract/factories";
import type { ChannelSettings } from "@novu-query/contract/types";
import type { SubscriberRow } from "../store/rows.js";
import { objectId } from "./object-id.js";

const day = 86_400_000;
type Place = (typeof vocabulary.places)[number];

/** What every subscriber of an environment shares: its ids, its integrations, the clock it is generated against. */
export interface SubscriberContext {
  faker: Faker;
  anchor: number;
  environmentId: string;
  organizationId: string;
  integrations: Record<"slack" | "msteams" | "fcm" | "apns", string>;
}

/** When the n-th subscriber was created and last updated. */
function times({ faker, anchor }: SubscriberContext, n: number, previousCreated: number) {
  // Roughly one in eight subscribers shares its creation time with the one before (a bulk import): pagination must
  // keep ties in a fixed order.
  const created =
    n > 0 && faker.number.int(7) === 0
      ? previousCreated
      : faker.date.between({ from: anchor - 365 * day, to: anchor - day }).getTime();
  const updated = faker.datatype.boolean(0.6) ? created : faker.date.between({ from: created, to: anchor }).getTime();
  return { created, updated };
}

/** A chat channel for three in ten, a push channel for three in ten. */
function channels({ faker, integrations }: SubscriberContext): ChannelSettings[] {
  const settings: ChannelSettings[] = [];
  if (faker.datatype.boolean(0.3)) {
    const provider = faker.helpers.arrayElement(["slack", "msteams"] as const);
    settings.push({
      providerId: provider,
      _integrationId: integrations[provider],
      integrationIdentifier: `${provider}-workspace`,
      credentials: {
        webhookUrl: `https://hooks.example.com/${provider}/${faker.string.alphanumeric(12)}`,
        channel: faker.helpers.arrayElement(["#general", "#deploys", "#alerts"]),
      },
    });
  }
  if (faker.datatype.boolean(0.3)) {
    const provider = faker.helpers.arrayElement(["fcm", "apns"] as const);
    settings.push({
      providerId: provider,
      _integrationId: integrations[provider],
      credentials: {
        deviceTokens: Array.from({ length: faker.number.int({ min: 1, max: 3 }) }, () => faker.string.alphanumeric(32)),
      },
    });
  }
  return settings;
}

/** The e-mail of the n-th subscriber (one in twelve has none): from its name, or `user<n>` without one. */
function email(faker: Faker, n: number, firstName: string | null, lastName: string | null): string | null {
  if (!faker.datatype.boolean(0.92)) return null;
  const provider = faker.helpers.weightedArrayElement(vocabulary.emailDomains);
  return faker.internet
    .email({ firstName: firstName ?? "user", lastName: lastName ?? String(n), provider })
    .toLowerCase();
}

function phone(faker: Faker, place: Place): string | null {
  if (!faker.datatype.boolean(0.7)) return null;
  return `+${place.countryCode}${faker.string.numeric({ length: place.digits, allowLeadingZeros: false })}`;
}

/** The n-th subscriber of an environment (`previousCreated`: the creation time of the one before). */
export function subscriberRow(context: SubscriberContext, n: number, previousCreated: number): SubscriberRow {
  const { faker, anchor, environmentId, organizationId } = context;
  const { created, updated } = times(context, n, previousCreated);
  const firstName = faker.datatype.boolean(0.95) ? faker.person.firstName() : null;
  const lastName = faker.datatype.boolean(0.95) ? faker.person.lastName() : null;
  const place = faker.helpers.arrayElement(vocabulary.places);
  const channelSettings = channels(context);
  const lastOnline = faker.datatype.boolean(0.7) ? faker.date.between({ from: created, to: anchor }) : null;
  const id = objectId(faker, created);
  const subscriberId = faker.datatype.boolean(0.8) ? `user-${100000 + n}` : faker.string.uuid();
  return {
    id,
    environment_id: environmentId,
    organization_id: organizationId,
    subscriber_id: subscriberId,
    first_name: firstName,
    last_name: lastName,
    email: email(faker, n, firstName, lastName),
    phone: phone(faker, place),
    avatar: faker.datatype.boolean(0.5) ? `https://cdn.example.com/avatars/${faker.string.alphanumeric(10)}.png` : null,
    locale: faker.datatype.boolean(0.9) ? place.locale : null,
    timezone: faker.datatype.boolean(0.85) ? place.timezone : null,
    channels: channelSettings,
    topics: faker.helpers.arrayElements(vocabulary.topicKeys, { min: 0, max: 3 }),
    is_online: lastOnline ? faker.datatype.boolean(0.2) : null,
    last_online_at: lastOnline?.toISOString() ?? null,
    version: updated === created ? 0 : faker.number.int({ min: 1, max: 6 }),
    data: faker.datatype.boolean(0.6)
      ? { plan: faker.helpers.arrayElement(vocabulary.plans), seats: faker.number.int({ min: 1, max: 500 }) }
      : null,
    deleted: faker.datatype.boolean(0.02),
    created_at: new Date(created).toISOString(),
    updated_at: new Date(updated).toISOString(),
  };
}
