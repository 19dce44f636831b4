/**
 * What the compiler refuses in a handler's answer. Each line below fails to compile, and `@ts-expect-error` turns
 * that into a pass: were the line to compile, tsc would report the directive as unused and the build would fail.
 */
import { handler, type Subscriber } from "@novu-query/express";

declare const subscriber: Subscriber;
const { createdAt: _createdAt, ...withoutCreatedAt } = subscriber;

export const refused = [
  // @ts-expect-error a field the contract does not declare, in the body of a declared status
  handler("patchSubscriber", async () => ({ status: 200, body: { ...subscriber, passwordHash: "x" } })),
  // @ts-expect-error a status the operation does not declare
  handler("patchSubscriber", async () => ({ status: 201, body: subscriber })),
  // @ts-expect-error a required field missing from the answer
  handler("patchSubscriber", async () => ({ status: 200, body: withoutCreatedAt })),
];
