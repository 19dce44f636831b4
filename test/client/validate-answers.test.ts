/**
 * Opt-in validation of answers (`createClient({ validateAnswers })`): a success answer whose body breaks the contract
 * is refused as UnexpectedAnswerError naming each field, through the typed client, the page iterators and the query
 * options alike; a valid answer, and every answer when validation is off, passes as before.
 */
import { QueryClient } from "@tanstack/react-query";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { allSubscribers, createClient, dataOrThrow, UnexpectedAnswerError } from "../../contract/index.js";
import { exampleBody, handlers } from "../../contract/msw.js";
import { createQueries } from "../../contract/react-query.js";
import { validateAnswers } from "../../contract/validate-answers.js";
import { failure } from "../support/failure.js";

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const baseUrl = "https://api.example.com";
const validating = createClient({ baseUrl, apiKey: "test", validateAnswers });
const trusting = createClient({ baseUrl, apiKey: "test" });
const notificationId = "66b7e1d0c3a2b1f0e9d8c7b6";

const getNotification = (api: typeof validating) =>
  dataOrThrow(
    "getNotification",
    api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationId } } }),
  );

/** The example answer of an operation with a change, served for every request of that route. */
function malformed(path: string, change: (body: Record<string, unknown>) => void) {
  const operationId = path.startsWith("/v1/notifications/") ? "getNotification" : "searchSubscribers";
  const body = structuredClone(exampleBody(operationId, 200)) as Record<string, unknown>;
  change(body);
  server.use(http.get(`${baseUrl}${path}`, () => HttpResponse.json(body)));
}

describe("answers checked against the contract", () => {
  it("pass every valid answer as they are", async () => {
    const notification = await getNotification(validating);
    expect(notification._id).toBe(notificationId);
    const subscribers = [];
    for await (const subscriber of allSubscribers(validating, { limit: 5 })) subscribers.push(subscriber);
    expect(subscribers.length).toBeGreaterThan(0);
  });

  it("refuse a malformed 200, naming the field and what is wrong with it", async () => {
    malformed(`/v1/notifications/${notificationId}`, (body) => {
      body.createdAt = "yesterday";
    });
    const error = (await failure(getNotification(validating))) as UnexpectedAnswerError;
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect(error).toMatchObject({ kind: "unexpected", status: 200, operationId: "getNotification" });
    expect(error.mismatches).toEqual([{ path: "createdAt", message: expect.any(String) }]);
    expect(error.message).toMatch(/^HTTP 200: an answer that is not the contract's: createdAt /);
    expect(error.body).toContain('"yesterday"');
  });

  it("name a field deep in a page, and count the others", async () => {
    malformed("/v2/subscribers", (body) => {
      const [first] = body.data as Record<string, unknown>[];
      if (!first) throw new Error("the example has no subscriber");
      first.email = 42;
      delete first._id;
      body.next = 7;
    });
    const error = (await failure(
      dataOrThrow("searchSubscribers", validating.GET("/v2/subscribers", { params: { query: {} } })),
    )) as UnexpectedAnswerError;
    expect(error.mismatches.map((mismatch) => mismatch.path).sort()).toEqual(["data[0]._id", "data[0].email", "next"]);
    expect(error.message).toMatch(/\(and 2 more\)$/);
  });

  it("refuse it through the query options too, without retrying it", async () => {
    malformed(`/v1/notifications/${notificationId}`, (body) => {
      body.channels = ["carrier-pigeon"];
    });
    const queryClient = new QueryClient();
    const queries = createQueries(validating);
    const error = await queryClient.fetchQuery(queries.notification(notificationId)).catch((caught) => caught);
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect((error as UnexpectedAnswerError).mismatches[0]?.path).toBe("channels[0]");
  });

  it("hand a malformed answer over as before when validation is off", async () => {
    malformed(`/v1/notifications/${notificationId}`, (body) => {
      body.createdAt = "yesterday";
    });
    expect((await getNotification(trusting)).createdAt).toBe("yesterday");
  });

  it("leave error answers to the typed errors", async () => {
    const error = await failure(
      dataOrThrow("searchSubscribers", validating.GET("/v2/subscribers", { params: { query: { limit: 500 } } })),
    );
    expect(error).toMatchObject({ kind: "contract", statusCode: 422 });
  });
});
