import { type AtOnceHandler, handler, messages, serialized } from "@novu-query/express";

// The pipeline has refused what the contract refuses without data (both cursors, an unknown time zone): these read
// and write only.
export const searchSubscribers = handler("searchSubscribers", async ({ query }, { auth, store }) => {
  return { status: 200, body: await store.subscribers.search(auth.environmentId, query) };
});

export const patchSubscriber = handler("patchSubscriber", async ({ path, body }, { auth, store, errors }) => {
  const subscriber = await store.subscribers.patch(auth.environmentId, path.subscriberId, body);
  if (!subscriber) throw errors.notFound(messages.subscriberNotFound(path.subscriberId));
  return { status: 200, body: subscriber };
});

/**
 * The PATCH with an Idempotency-Key in one round trip (D68): the store claims the key, runs the same PATCH and keeps
 * its answer in one call. A subscriber that does not exist is left to the PATCH above, in a session, which stores its
 * 404.
 */
export const patchSubscriberAtOnce: AtOnceHandler<"patchSubscriber"> = async (
  { path, body },
  { auth, store },
  call,
) => {
  const result = await store.subscribers.patchAtOnce(auth.environmentId, path.subscriberId, body, call);
  switch (result.outcome) {
    case "held":
      return { held: true };
    case "stored":
      return { held: false, stored: result.stored };
    case "absent":
      return undefined;
    case "patched": {
      // Stringified once (D75): its length is what the environment's bound on stored answers counts, and the same
      // text is the answer's body, sent as it is.
      const text = JSON.stringify(result.subscriber);
      const ran = { status: 200, body: serialized<typeof result.subscriber>(text) } as const;
      return { held: false, ran, storedBytes: Buffer.byteLength(text) };
    }
  }
};
