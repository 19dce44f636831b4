/**
 * Mock Service Worker handlers from the contract, for mocking inside the app: in the browser (service worker), in
 * Vitest or Jest on Node (`setupServer`) and in Storybook. No port, no CORS, a per-test choice of answer.
 *
 *   import { setupServer } from "msw/node";
 *   import { handlers, answer } from "@novu-query/contract/msw";
 *   const server = setupServer(...handlers);
 *   server.use(answer("getNotification", 404));          // this test: the documented 404
 *
 * Every operation answers with its named examples from the bundled spec. Requests are checked against the same spec
 * the way the static mock (Prism) checks them: no `Authorization: ApiKey <key>` is a 401, a parameter or body the
 * contract refuses is a 422 naming each invalid input (`query.limit`, `body.email`), as the server words it.
 * A `Prefer: code=404, example=NotificationNotFound` request header picks an answer, as with Prism.
 * Needs `msw` 2.x, `ajv` and `ajv-formats` (optional peer dependencies of this package).
 */
export type { BodyOf, ExampleOf, StatusOf } from "./msw/example-answers.js";
export { exampleBody } from "./msw/example-answers.js";
export type { HandlerOptions } from "./msw/routes.js";
export {
  createStatefulHandlers,
  type StatefulHandlers,
  type StatefulOptions,
} from "./msw/stateful-handlers.js";
export { answer, createHandlers, handlers, respond } from "./msw/static-handlers.js";
