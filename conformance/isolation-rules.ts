/**
 * Two environments (`apiKey` and `otherApiKey`) must not see each other: each environment's ids, emails and keys,
 * asked for with the other's key, get what the model says of the asking environment's own data, and a PATCH with
 * one key never changes the other environment's record (read back with its own key).
 */
import type { ApiClient, Subscriber } from "@novu-query/contract";
import { patchSubscriber } from "@novu-query/contract/model";
import { type ConformanceContext, check, checkEqual, type Rule, RuleFailure } from "./context.js";
import { expectList, expectSearch, type Snapshot, snapshotOf } from "./oracle.js";
import { patch } from "./patch-rules.js";
import { restoreBody, writeTarget } from "./write-target.js";

interface Side {
  name: string;
  client: ApiClient;
  snapshot: Snapshot;
}

/** Both environments, each asking about the other's data; fails unless each has a subscriber and a notification. */
async function sides(context: ConformanceContext): Promise<[Side, Side][]> {
  const main = { name: "apiKey", client: context.client, snapshot: await snapshotOf(context, "main") };
  const otherClient = context.otherClient as ApiClient;
  const other = { name: "otherApiKey", client: otherClient, snapshot: await snapshotOf(context, "other") };
  for (const side of [main, other]) {
    if (!side.snapshot.subscribers[0] || !side.snapshot.notifications[0]) {
      throw new RuleFailure(`the environment of ${side.name} needs subscribers and notifications for this rule`);
    }
  }
  const shared = <Row extends { _id: string }>(mine: Row[], theirs: Row[]) => {
    const ids = new Set(theirs.map((row) => row._id));
    return mine.find((row) => ids.has(row._id))?._id;
  };
  const subscriber = shared(main.snapshot.subscribers, other.snapshot.subscribers);
  const notification = shared(main.snapshot.notifications, other.snapshot.notifications);
  check(
    subscriber === undefined && notification === undefined,
    `apiKey and otherApiKey both see ${subscriber ? `subscriber ${subscriber}` : `notification ${notification}`}: either they are keys of one environment, or the implementation reads across environments`,
  );
  return [
    [main, other],
    [other, main],
  ];
}

async function findBySubscriberId(client: ApiClient, subscriberId: string): Promise<Subscriber | undefined> {
  const { data } = await client.GET("/v2/subscribers", { params: { query: { subscriberId } } });
  return data?.data[0];
}

export const isolationRules: Rule[] = [
  {
    id: "isolation.search",
    level: "behaviour",
    needsOtherKey: true,
    text: "A search never finds or counts the other environment's subscribers, by subscriberId, email or cursor",
    async run(c) {
      for (const [asking, owner] of await sides(c)) {
        for (const theirs of owner.snapshot.subscribers.slice(0, 3)) {
          await expectSearch(c, asking.snapshot, { subscriberId: theirs.subscriberId }, asking.client);
          if (theirs.email) await expectSearch(c, asking.snapshot, { email: theirs.email }, asking.client);
          await expectSearch(c, asking.snapshot, { after: theirs._id, limit: 3 }, asking.client);
        }
        await expectSearch(c, asking.snapshot, { limit: 1 }, asking.client);
      }
    },
  },
  {
    id: "isolation.list",
    level: "behaviour",
    needsOtherKey: true,
    text: "A list never shows the other environment's notifications, by subscriber, email, transaction or workflow",
    async run(c) {
      for (const [asking, owner] of await sides(c)) {
        for (const theirs of owner.snapshot.notifications.slice(0, 3)) {
          await expectList(c, asking.snapshot, { transactionId: theirs.transactionId }, asking.client);
          if (theirs._templateId)
            await expectList(c, asking.snapshot, { templates: [theirs._templateId] }, asking.client);
          if (theirs.subscriber) {
            const { subscriberId, email } = theirs.subscriber;
            await expectList(c, asking.snapshot, { subscriberIds: [subscriberId] }, asking.client);
            if (email) await expectList(c, asking.snapshot, { emails: [email] }, asking.client);
          }
        }
      }
    },
  },
  {
    id: "isolation.get",
    level: "behaviour",
    needsOtherKey: true,
    text: "Getting the other environment's notification by its id is 404 Notification not found",
    async run(c) {
      for (const [asking, owner] of await sides(c)) {
        for (const theirs of owner.snapshot.notifications.slice(0, 3)) {
          const { response, data } = await asking.client.GET("/v1/notifications/{notificationId}", {
            params: { path: { notificationId: theirs._id } },
          });
          check(
            response.status === 404,
            `GET /v1/notifications/${theirs._id} (of ${owner.name}'s environment) with ${asking.name} answered ${
              response.status
            }${response.status === 200 ? ` with ${JSON.stringify(data).slice(0, 120)}` : ""}`,
          );
        }
      }
    },
  },
  {
    id: "isolation.patch",
    level: "behaviour",
    needsOtherKey: true,
    writes: true,
    text: "A PATCH with one key never changes the other environment's subscriber (read back with its own key)",
    async run(c) {
      for (const [asking, owner] of await sides(c)) {
        const theirs = owner.snapshot.subscribers.find(
          (s) => !asking.snapshot.subscribers.some((mine) => mine.subscriberId === s.subscriberId),
        );
        const target = theirs ?? (owner.snapshot.subscribers[0] as Subscriber);
        const before = await findBySubscriberId(owner.client, target.subscriberId);
        check(before, `${target.subscriberId} is no longer found with ${owner.name}`);
        const body = { lastName: `${before.lastName ?? ""} (isolation)` };
        const path = { subscriberId: target.subscriberId };
        const { response, data } = await asking.client.PATCH("/v2/subscribers/{subscriberId}", {
          params: { path },
          body,
        });
        const expected = patchSubscriber(asking.snapshot.subscribers, target.subscriberId, body);
        const request = `PATCH /v2/subscribers/${target.subscriberId} with ${asking.name}`;
        check(
          response.status === expected.status,
          `${request} (a subscriber of ${owner.name}'s environment): expected ${expected.status}, received ${response.status}`,
        );
        const after = await findBySubscriberId(owner.client, target.subscriberId);
        checkEqual(after, before, `${target.subscriberId} read back with ${owner.name} after ${request}`);
        if (response.status === 200 && data) {
          // The asking environment has a subscriber of the same subscriberId: it was the one changed; put it back.
          const mine = asking.snapshot.subscribers.find((s) => s.subscriberId === target.subscriberId);
          await asking.client.PATCH("/v2/subscribers/{subscriberId}", {
            params: { path },
            body: { lastName: mine?.lastName ?? null },
          });
          c.memo.delete("snapshot.main");
          c.memo.delete("snapshot.other");
        }
      }
    },
  },
  {
    id: "isolation.idempotency-key",
    level: "behaviour",
    needsOtherKey: true,
    writes: true,
    text: "One idempotency key used in two environments is two keys: each PATCH is applied in its own environment and answered with its own subscriber, neither replayed nor refused as reused",
    async run(c) {
      const key = `conformance-isolation-${Date.now()}`;
      const targets = [
        { name: "apiKey", client: c.client, target: await writeTarget(c, "main") },
        { name: "otherApiKey", client: c.otherClient as ApiClient, target: await writeTarget(c, "other") },
      ];
      try {
        for (const { name, client, target } of targets) {
          const { subscriberId } = target.subscriber;
          const body = { data: { isolation: key, environment: name } };
          const { data, response } = await patch(c, subscriberId, body, key, client);
          const request = `PATCH /v2/subscribers/${subscriberId} with ${name} and idempotency-key ${key}`;
          check(
            response.status === 200 && data,
            `${request} answered ${response.status} (the key was used in the other environment)`,
          );
          check(
            response.headers.get("idempotency-replay") === null,
            `${request} was answered as a replay of the other environment's request`,
          );
          checkEqual([data.subscriberId, data.data], [subscriberId, body.data], `${request}: the subscriber changed`);
        }
      } finally {
        for (const { client, target } of targets) {
          await patch(c, target.subscriber.subscriberId, restoreBody(target, ["data"]), undefined, client);
        }
      }
    },
  },
];
