/**
 * The outside attack pass's medium and low items (issue 47), each as it was found, on the real app: connections that
 * send nothing or idle past keep-alive are closed, a client that stops reading is dropped, connections past the cap
 * answered 503, pipelined requests applied in the order sent (on PostgreSQL they ran at once), a valid request's
 * answer kept before the refusal of garbage after it, HEAD on GET routes, one Host, absolute-form targets, JSON 417
 * and CONNECT answers, UTF-8 bodies only, printable-ASCII idempotency keys, 414 for a long URL, a key lookup that does
 * not answer within its time.
 */
import { Server as NodeHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { createHttpServer, messages } from "@novu-query/express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drivers } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

/**
 * Raw bytes to a server, and everything it sends back until it closes or `untilMs` passes; `closedAfterMs` counts from
 * the connection, `idleBeforeCloseMs` from the last bytes received to the close.
 */
function rawExchange(
  port: number,
  bytes: string,
  untilMs = 3000,
): Promise<{ text: string; closedAfterMs?: number; idleBeforeCloseMs?: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let lastReceived: number | undefined;
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk) => {
      text += String(chunk);
      lastReceived = Date.now();
    });
    const done = (closedAfterMs?: number) => {
      clearTimeout(timer);
      socket.destroy();
      if (closedAfterMs === undefined) return resolve({ text });
      const idleBeforeCloseMs = lastReceived === undefined ? undefined : started + closedAfterMs - lastReceived;
      resolve({ text, closedAfterMs, ...(idleBeforeCloseMs !== undefined && { idleBeforeCloseMs }) });
    };
    socket.on("close", () => done(Date.now() - started));
    socket.on("error", () => {});
    const timer = setTimeout(() => done(), untilMs);
    if (bytes) socket.write(bytes);
  });
}

const portOf = (server: TestServer) => Number(new URL(server.baseUrl).port);
/** The status of each answer in a stream of them (one ends where the next begins: no line break between). */
const statusLines = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
const bodies = (text: string) =>
  [...text.matchAll(/\r\n\r\n(\{[^\r]*?\})(?=HTTP\/1\.1|$)/g)].map((match) => JSON.parse(match[1] as string));

describe("sockets: timeouts and the cap", () => {
  const keepAliveTimeoutMs = 400;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 20, notifications: 20 },
      config: { headersTimeoutMs: 400, keepAliveTimeoutMs, maxConnections: 30 },
    });
  });
  afterAll(() => server?.close());

  it("closes a connection that sends nothing with a 408 in the error shape", async () => {
    const { text, closedAfterMs } = await rawExchange(portOf(server), "", 4000);
    expect(statusLines(text)).toEqual([408]);
    expect(bodies(text)[0]).toMatchObject({ statusCode: 408, error: "Request Timeout" });
    expect(closedAfterMs).toBeLessThan(2000);
  });

  it("closes an idle keep-alive connection after its answer", async () => {
    const request = `GET /v1/notifications?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${server.production.apiKey}\r\n\r\n`;
    const { text, idleBeforeCloseMs } = await rawExchange(portOf(server), request, 6000);
    expect(statusLines(text)).toEqual([200]);
    // Timed from the answer, not the connection: the request's own time is the host's. Node keeps an idle socket one
    // second past the timeout it advertises (`Keep-Alive: timeout`), so that a client reusing it at the edge is not
    // reset: Node 24 calls it `keepAliveTimeoutBuffer`; Node 20.20 adds the same second without the name (measured:
    // 400 ms closed after 1,394-1,401 on both). Not before the timeout: a server closing after each answer fails too.
    const buffer =
      (new NodeHttpServer() as NodeHttpServer & { keepAliveTimeoutBuffer?: number }).keepAliveTimeoutBuffer ?? 1000;
    expect(idleBeforeCloseMs).toBeGreaterThanOrEqual(keepAliveTimeoutMs - 50);
    expect(idleBeforeCloseMs).toBeLessThan(keepAliveTimeoutMs + buffer + 1000);
  });

  it("answers connections past MAX_CONNECTIONS 503 with Retry-After, and takes new ones once they close", async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 30; i++) {
      const socket = connect(portOf(server), "127.0.0.1");
      socket.on("error", () => {});
      held.push(socket);
      await new Promise((resolve) => socket.once("connect", resolve));
    }
    const { text } = await rawExchange(portOf(server), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 2000);
    for (const socket of held) socket.destroy();
    expect(statusLines(text)).toEqual([503]);
    expect(text).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(bodies(text)[0]).toMatchObject({ statusCode: 503, message: messages.overloaded });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });
});

describe("a client that stops reading an answer", () => {
  it("is dropped after WRITE_STALL_TIMEOUT_MS without progress, and its answer with it", async () => {
    const big = "x".repeat(32 * 1024 * 1024);
    let closed: (ms: number) => void = () => {};
    const whenClosed = new Promise<number>((resolve) => {
      closed = resolve;
    });
    const server = createHttpServer(
      (_req, res) => {
        const started = Date.now();
        res.socket?.once("close", () => closed(Date.now() - started));
        res.end(big);
      },
      { writeStallTimeoutMs: 500 },
    ).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    socket.pause();
    try {
      expect(await whenClosed).toBeLessThan(5000);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});

describe.each(drivers)("HTTP as the RFCs say (%s)", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ driver, demo: { subscribers: 20, notifications: 20 } });
  });
  afterAll(() => server?.close());

  const auth = () => `Authorization: ApiKey ${server.production.apiKey}\r\n`;
  const subscriberId = () => server.production.subscribers.find((s) => !s.deleted)?.subscriber_id as string;

  it("applies and answers pipelined PATCHes in the order sent", async () => {
    const id = subscriberId();
    const patches = Array.from({ length: 20 }, (_, n) => {
      const body = JSON.stringify({ data: { pipelined: n } });
      return `PATCH /v2/subscribers/${id} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    });
    const { text } = await rawExchange(portOf(server), patches.join(""), 8000);
    const answers = bodies(text) as { __v: number; data: { pipelined: number } }[];
    expect(statusLines(text)).toEqual(Array(20).fill(200));
    expect(answers.map((a) => a.data.pipelined)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    const versions = answers.map((a) => a.__v);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    const now = await (await server.request(`/v2/subscribers?subscriberId=${id}`)).json();
    expect(now.data[0].data).toEqual({ pipelined: 19 });
  });

  it("answers a valid PATCH before refusing the garbage that follows it", async () => {
    const body = JSON.stringify({ data: { before: "garbage" } });
    const request = `PATCH /v2/subscribers/${subscriberId()} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const { text } = await rawExchange(portOf(server), `${request}\x00\x01garbage\r\n\r\n`, 4000);
    expect(statusLines(text)).toEqual([200, 400]);
  });

  it("answers HEAD on a GET route as the GET, without a body", async () => {
    const head = await server.request("/v1/notifications?limit=1", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await head.text()).toBe("");
    expect((await server.request(`/v2/subscribers/${subscriberId()}`, { method: "HEAD" })).status).toBe(405);
  });

  it("refuses two Host headers, and reads two Authorization headers as one unknown key", async () => {
    const twoHosts = await rawExchange(
      portOf(server),
      "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
      1500,
    );
    expect(statusLines(twoHosts.text)).toEqual([400]);
    expect(bodies(twoHosts.text)[0]).toMatchObject({ message: messages.oneHost });
    const twoKeys = await rawExchange(
      portOf(server),
      `GET /v1/notifications HTTP/1.1\r\nHost: x\r\n${auth()}Authorization: ApiKey ${"0".repeat(32)}\r\nConnection: close\r\n\r\n`,
      1500,
    );
    expect(statusLines(twoKeys.text)).toEqual([401]);
    expect(bodies(twoKeys.text)[0]).toMatchObject({ message: messages.keyNotFound });
  });

  it("serves an absolute-form target, and answers an unmet Expect and CONNECT in the error shape", async () => {
    const absolute = await rawExchange(
      portOf(server),
      `GET ${server.baseUrl}/v1/notifications?limit=1 HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`,
      1500,
    );
    expect(statusLines(absolute.text)).toEqual([200]);
    const unmet = await rawExchange(
      portOf(server),
      `GET /v1/notifications HTTP/1.1\r\nHost: x\r\n${auth()}Expect: something\r\nConnection: close\r\n\r\n`,
      1500,
    );
    expect(statusLines(unmet.text)).toEqual([417]);
    expect(bodies(unmet.text)[0]).toMatchObject({ statusCode: 417, message: messages.expectationFailed("something") });
    const tunnel = await rawExchange(
      portOf(server),
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n",
      1500,
    );
    expect(statusLines(tunnel.text)).toEqual([405]);
    expect(bodies(tunnel.text)[0]).toMatchObject({ statusCode: 405 });
  });

  it("accepts JSON bodies in UTF-8 only (415 for UTF-7, whose +ADw- would be stored as <)", async () => {
    const send = (contentType: string) =>
      server.request(`/v2/subscribers/${subscriberId()}`, {
        method: "PATCH",
        headers: { "content-type": contentType },
        body: '{"firstName":"+ADw-b+AD4-"}',
      });
    const utf7 = await send("application/json; charset=utf-7");
    expect(utf7.status).toBe(415);
    expect((await utf7.json()).message).toBe(messages.notUtf8("utf-7"));
    const utf8 = await send("application/json; charset=UTF-8");
    expect(utf8.status).toBe(200);
    expect((await utf8.json()).firstName).toBe("+ADw-b+AD4-");
  });

  it("echoes a printable-ASCII idempotency key byte for byte, and refuses bytes beyond ASCII", async () => {
    const request = (key: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `PATCH /v2/subscribers/${subscriberId()} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 2\r\nIdempotency-Key: `,
        ),
        key,
        Buffer.from("\r\nConnection: close\r\n\r\n{}"),
      ]);
    const exchange = (bytes: Buffer) =>
      new Promise<Buffer>((resolve) => {
        const socket = connect(portOf(server), "127.0.0.1");
        const chunks: Buffer[] = [];
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("close", () => resolve(Buffer.concat(chunks)));
        socket.write(bytes);
      });
    const key = Buffer.from(`a key ~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}-${Date.now()}`, "latin1");
    const answer = await exchange(request(key));
    expect(statusLines(answer.toString("latin1"))).toEqual([200]);
    expect(answer.includes(Buffer.concat([Buffer.from("Idempotency-Key: "), key, Buffer.from("\r\n")]))).toBe(true);
    for (const beyond of [Buffer.from("clé", "utf8"), Buffer.from([0x6b, 0xff, 0x31])]) {
      const refused = await exchange(request(beyond));
      expect(statusLines(refused.toString("latin1"))).toEqual([400]);
      expect(refused.toString("latin1")).toContain(messages.idempotencyKeyNotAscii);
      expect(refused.toString("latin1")).not.toContain("Idempotency-Key:");
    }
  });

  it("answers a URL longer than the head's limit 414, as a URL over MAX_URL_LENGTH, and large headers 431", async () => {
    const long = await server.request(`/v1/notifications?search=${"a".repeat(20_000)}`);
    expect(long.status).toBe(414);
    expect((await long.json()).message).toBe(messages.urlTooLong(8192));
    const headers = await server.request("/v1/notifications", { headers: { "x-padding": "a".repeat(20_000) } });
    expect(headers.status).toBe(431);
  });
});

describe("a key lookup that does not answer", () => {
  it("is answered 503 with Retry-After within its time, not left waiting", async () => {
    const server = await startTestServer({
      driver: "pglite",
      demo: { subscribers: 5, notifications: 5 },
      config: { statementTimeoutMs: 300 },
    });
    try {
      const lookup = server.store.access.environmentForKeyHash.bind(server.store.access);
      server.store.access.environmentForKeyHash = (hash: string) =>
        new Promise((resolve) => setTimeout(() => resolve(lookup(hash)), 5000));
      const started = Date.now();
      const answer = await server.request("/v1/notifications");
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await answer.json()).message).toBe(messages.keyLookupTimeout(300));
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await server.close();
    }
  });
});
