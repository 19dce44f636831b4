/**
 * The static handlers: every operation answers with its named examples, fitted to the request; `answer` and `respond`
 * pick one answer for one test. Requests are checked first (./request-checks.ts).
 */
import { type HttpHandler, http } from "msw";
import { type OperationId, operationTable } from "../../generated/operations.js";
import {
  type BodyOf,
  type Choice,
  checkChoice,
  type ExampleOf,
  exampleResponse,
  preferred,
  type StatusOf,
} from "./example-answers.js";
import { authenticate, requestFailure } from "./request-checks.js";
import { type HandlerOptions, urlPattern } from "./routes.js";
import type { Json } from "./spec.js";

function handlerFor(id: OperationId, options: HandlerOptions, fixed?: Choice): HttpHandler {
  if (fixed) checkChoice(id, fixed);
  const method = operationTable[id].method;
  return http[method](urlPattern(id, options.baseUrl), async ({ request, params }) => {
    const url = new URL(request.url);
    const caller = authenticate(request, url);
    if ("unauthorized" in caller) return caller.unauthorized;
    const refused = await requestFailure(id, request.clone(), params as Json, url);
    if (refused) return refused;
    const prefer = preferred(request);
    const choice: Choice = fixed ?? {
      status: prefer.status ?? 200,
      ...(prefer.example && { example: prefer.example }),
    };
    checkChoice(id, choice);
    const body = operationTable[id].hasBody ? await request.json() : undefined;
    return exampleResponse(id, choice, { url, params, body });
  });
}

/** Handlers for every operation of the contract, answering with the named examples (the first of each status). */
export function createHandlers(options: HandlerOptions = {}): HttpHandler[] {
  return (Object.keys(operationTable) as OperationId[]).map((id) => handlerFor(id, options));
}

/** The default handlers: any origin, the first named example of each answer. */
export const handlers: HttpHandler[] = createHandlers();

/**
 * A handler that answers one operation with a documented status and, optionally, one of its named examples, for
 * `server.use(...)` / `worker.use(...)` in one test or story. Requests are still checked first (a request without a
 * key still gets its 401). The status and the example name are typed: an undeclared one does not compile.
 *
 *   server.use(answer("listNotifications", 200, "ListNotificationsEmpty"));
 *   server.use(answer("getNotification", 404));
 */
export function answer<Op extends OperationId, S extends StatusOf<Op>>(
  operationId: Op,
  status: S,
  example?: ExampleOf<Op, S>,
  options: HandlerOptions = {},
): HttpHandler {
  return handlerFor(operationId, options, { status, ...(example !== undefined && { example: example as string }) });
}

/**
 * A handler that answers one operation with a documented status and a body of your own, typed by the contract: a
 * field the schema does not have, or a missing required one, is a compile error.
 *
 *   server.use(respond("getNotification", 200, { ...exampleBody("getNotification", 200), transactionId: "txn-1" }));
 */
export function respond<Op extends OperationId, S extends StatusOf<Op>>(
  operationId: Op,
  status: S,
  body: BodyOf<Op, S>,
  options: HandlerOptions = {},
): HttpHandler {
  return handlerFor(operationId, options, { status, body });
}
