/**
 * The service's data: subscribers and notifications of two environments in arrays, the same on every start. A real
 * team keeps these in its own database; nothing here depends on how.
 */
import type { ChannelType, Notification, SeverityLevel, Subscriber } from "@novu-query/express";

export interface Environment {
  id: string;
  organizationId: string;
}

const objectId = (prefix: number, n: number) =>
  `${prefix.toString(16).padStart(8, "0")}${n.toString(16).padStart(16, "0")}`;
const organizationId = objectId(1, 1);

/** The environments API keys belong to (src/auth.ts names them). */
export const environments: Record<string, Environment> = {
  production: { id: objectId(2, 1), organizationId },
  development: { id: objectId(2, 2), organizationId },
};

const firstNames = ["Ada", "Grace", "Alan", "Maya", "Linus", "Barbara", "Ken", "Radia", "Tim", "Katherine", "Edsger"];
const lastNames = ["Lovelace", "Hopper", "Turing", "Patel", "Torvalds", "Liskov", "Thompson", "Perlman", "Berners-Lee"];
const channels: ChannelType[] = ["in_app", "email", "sms", "chat", "push"];
const severities: SeverityLevel[] = ["high", "medium", "low", "none"];
const start = Date.UTC(2026, 9, 1);
/** Three rows share each timestamp, so that ties are ordered by `_id`. */
const at = (i: number) => new Date(start + Math.floor(i / 3) * 3_600_000).toISOString();

function subscriber(environment: Environment, i: number): Subscriber {
  const firstName = firstNames[i % firstNames.length] as string;
  const lastName = lastNames[(i * 7) % lastNames.length] as string;
  return {
    _id: objectId(3, i),
    subscriberId: `user-${String(1000 + i)}`,
    firstName: i % 13 === 5 ? null : firstName,
    lastName,
    email: i % 11 === 4 ? null : `${firstName}.${lastName}_${i}@example.com`.toLowerCase(),
    phone: i % 4 === 0 ? null : `+4930${String(9_000_000 + i * 7919)}`,
    avatar: null,
    locale: i % 2 === 0 ? "en-US" : "de_DE",
    timezone: i % 3 === 0 ? "Europe/Berlin" : "America/New_York",
    channels: [],
    topics: i % 5 === 0 ? ["release-notes"] : [],
    isOnline: i % 2 === 0,
    lastOnlineAt: i % 2 === 0 ? at(i + 30) : null,
    __v: 0,
    data: i % 3 === 0 ? { plan: "team" } : null,
    _organizationId: environment.organizationId,
    _environmentId: environment.id,
    deleted: i % 17 === 16,
    createdAt: at(i),
    updatedAt: at(i + (i % 4)),
  };
}

function notification(environment: Environment, i: number, to: Subscriber): Notification {
  return {
    _id: objectId(4, i),
    _environmentId: environment.id,
    _organizationId: environment.organizationId,
    _subscriberId: to._id,
    transactionId: `txn-${String(5000 + i)}`,
    _templateId: objectId(5, i % 4),
    createdAt: at(i),
    updatedAt: at(i),
    channels: [
      ...new Set<ChannelType>([
        channels[i % channels.length] as ChannelType,
        ...(i % 3 === 0 ? ["email" as const] : []),
      ]),
    ],
    subscriber: { _id: to._id, subscriberId: to.subscriberId, ...(to.email ? { email: to.email } : {}) },
    payload: { orderId: `order-${i}` },
    tags: i % 2 === 0 ? ["orders"] : [],
    topics: i % 4 === 0 ? [{ _topicId: objectId(6, 1), topicKey: "release-notes" }] : [],
    severity: severities[i % severities.length] as SeverityLevel,
    critical: i % 9 === 0,
    jobs: [],
  };
}

export const subscribers: Subscriber[] = [];
export const notifications: Notification[] = [];
for (const [index, environment] of Object.values(environments).entries()) {
  const count = index === 0 ? 40 : 6;
  const own = Array.from({ length: count }, (_, i) => subscriber(environment, index * 100 + i));
  subscribers.push(...own);
  for (let i = 0; i < count * 2; i++) {
    notifications.push(notification(environment, index * 1000 + i, own[i % count] as Subscriber));
  }
}
