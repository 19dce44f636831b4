// @vitest-environment jsdom
/**
 * The TanStack Query options (contract/react-query.ts) in React, as a component test meets them: React Testing Library
 * over MSW's stateful mode. An infinite search walks three pages by cursor, a PATCH invalidates the search and the
 * list shows the change, and openapi-react-query takes the typed client as it is (no cast).
 */
import {
  QueryClient,
  QueryClientProvider,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { http } from "msw";
import { setupServer } from "msw/node";
import createQueryClient from "openapi-react-query";
import { createElement as h, type ReactNode } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../contract/index.js";
import { createStatefulHandlers } from "../../contract/msw.js";
import { createQueries } from "../../contract/react-query.js";

const mock = createStatefulHandlers({ seed: 9, subscribers: 25, notifications: 30 });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  cleanup();
  mock.reset();
});
afterAll(() => server.close());

const api = createClient({ baseUrl: "https://api.example.com", apiKey: "test" });
const queries = createQueries(api);

function withClient(node: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(h(QueryClientProvider, { client }, node));
}

function AllSubscribers() {
  const pages = useInfiniteQuery(queries.searchSubscribersInfinite({ limit: 10 }));
  const rows = pages.data?.pages.flatMap((page) => page.data) ?? [];
  return h(
    "div",
    null,
    h("p", { "data-testid": "count" }, `${rows.length} subscribers in ${pages.data?.pages.length ?? 0} pages`),
    pages.hasNextPage
      ? h("button", { type: "button", onClick: () => pages.fetchNextPage() }, "More")
      : h("p", null, "All loaded"),
  );
}

function RenameFirst() {
  const client = useQueryClient();
  const search = useQuery(queries.searchSubscribers({ limit: 3, orderBy: "createdAt", orderDirection: "ASC" }));
  const rename = useMutation({
    ...queries.patchSubscriber(),
    onSuccess: () => void client.invalidateQueries({ queryKey: queries.keys.subscribers() }),
  });
  const first = search.data?.data[0];
  return h(
    "div",
    null,
    h("p", { "data-testid": "first" }, first ? `${first.firstName} (v${first.__v})` : "loading"),
    h("p", { "data-testid": "form" }, `${rename.isPending ? "Saving…" : rename.isSuccess ? "Saved" : "Idle"}`),
    h("p", { "data-testid": "search" }, search.isFetching ? "refreshing" : "fresh"),
    first &&
      h(
        "button",
        {
          type: "button",
          onClick: () => rename.mutate({ subscriberId: first.subscriberId, body: { firstName: "Ada" } }),
        },
        "Rename",
      ),
  );
}

const $api = createQueryClient(api);

function LatestNotifications() {
  const { data, error } = $api.useQuery("get", "/v1/notifications", { params: { query: { limit: 2 } } });
  if (error) return h("p", null, error.statusCode === 422 ? Object.keys(error.errors).join(",") : error.message);
  return h("p", { "data-testid": "latest" }, data ? `${data.data.length} latest, more: ${data.hasMore}` : "loading");
}

describe("TanStack Query over the typed client", () => {
  it("pages an infinite search three times by cursor, and stops at the last page", async () => {
    withClient(h(AllSubscribers));
    await waitFor(() => expect(screen.getByTestId("count").textContent).toBe("10 subscribers in 1 pages"));
    fireEvent.click(screen.getByText("More"));
    await waitFor(() => expect(screen.getByTestId("count").textContent).toBe("20 subscribers in 2 pages"));
    fireEvent.click(screen.getByText("More"));
    await waitFor(() => expect(screen.getByTestId("count").textContent).toBe("25 subscribers in 3 pages"));
    expect(screen.getByText("All loaded")).toBeTruthy();
  });

  it("refreshes the search after a PATCH that invalidates it", async () => {
    withClient(h(RenameFirst));
    await waitFor(() => expect(screen.getByTestId("first").textContent).not.toBe("loading"));
    const before = screen.getByTestId("first").textContent ?? "";
    const version = Number(before.match(/\(v(\d+)\)/)?.[1]);
    fireEvent.click(screen.getByText("Rename"));
    await waitFor(() => expect(screen.getByTestId("first").textContent).toBe(`Ada (v${version + 1})`));
  });

  it("frees the form as soon as the PATCH is answered, while the search still refetches", async () => {
    withClient(h(RenameFirst));
    await waitFor(() => expect(screen.getByTestId("first").textContent).not.toBe("loading"));
    // The refetch after the PATCH waits (as one that waits out a 429's Retry-After would) until the gate opens.
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    server.use(
      http.get(
        "*/v2/subscribers",
        async () => {
          await gate;
          return undefined; // on to the stateful handler
        },
        { once: true },
      ),
    );
    fireEvent.click(screen.getByText("Rename"));
    await waitFor(() => expect(screen.getByTestId("form").textContent).toBe("Saved"));
    expect(screen.getByTestId("search").textContent).toBe("refreshing");
    open();
    await waitFor(() => expect(screen.getByTestId("search").textContent).toBe("fresh"));
  });

  it("works with openapi-react-query's createClient, given the typed client as it is", async () => {
    withClient(h(LatestNotifications));
    await waitFor(() => expect(screen.getByTestId("latest").textContent).toBe("2 latest, more: true"));
  });

  it("has a key for every infinite search, whatever its filters, and one for every subscriber query", async () => {
    const client = new QueryClient({
      defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } },
    });
    await client.fetchInfiniteQuery(queries.searchSubscribersInfinite({ limit: 5 }));
    await client.fetchInfiniteQuery(queries.searchSubscribersInfinite({ email: "@example.com" }));
    await client.fetchQuery(queries.searchSubscribers({ limit: 5 }));
    await client.fetchQuery(queries.listNotifications({ limit: 2 }));
    const stale = () =>
      client
        .getQueryCache()
        .getAll()
        .filter((query) => query.isStale())
        .map((query) => query.queryKey[2]);
    expect(stale()).toEqual([]);
    await client.invalidateQueries({ queryKey: queries.keys.searchSubscribersInfinite() }, { cancelRefetch: false });
    expect(stale()).toEqual(["search-pages", "search-pages"]);
    await client.invalidateQueries({ queryKey: queries.keys.subscribers() }, { cancelRefetch: false });
    expect(stale().sort()).toEqual(["search", "search-pages", "search-pages"]);
    client.clear();
  });
});
