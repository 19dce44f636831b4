import { handler } from "@novu-query/express";
import { environments } from "../data.js";
import { patchSubscriber as patch } from "../store.js";

export const patchSubscriber = handler("patchSubscriber", async ({ path, body }, { auth, errors }) => {
  const answer = patch(environments[auth.environmentId]?.id ?? "", path.subscriberId, body);
  if (answer.status === 422) throw errors.validation(answer.errors ?? {});
  if (answer.status !== 200) throw errors.notFound(answer.message);
  return { status: 200, body: answer.body };
});
