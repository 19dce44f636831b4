/**
 * The "minimal Express" column: a plain Express 5 app doing exactly the database work the server does for each
 * operation (the same store calls, so the same statements, prepared the same way, over a pool of the same settings,
 * and the same bound on stored PATCH answers)
 * and sending the same bodies, with nothing else: no authentication (one fixed environment), no validation, no request
 * rules, no logging, no security headers. The gap between it and the server is the server's own request pipeline.
 * Usage: tsx bench/minimal-express.ts <environmentId>   (DATABASE_URL and the pool settings as the server's; prints "API <url>")
 */
import type { AddressInfo } from "node:net";
import express from "express";
import { serializedText } from "../express/serialized.js";
import { loadConfig } from "../server/config.js";
import { DatabaseIdempotencyStore } from "../server/database-idempotency.js";
import { openStore } from "../server/store/store.js";
import { patchAsServer } from "./patch-as-server.js";

const environmentId = process.argv[2] as string;
const config = loadConfig();
const opened = await openStore({ ...config, databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const { store } = opened;
// The server's bound on stored answers too: applying it is database work the server does for PATCHes.
const idempotency = new DatabaseIdempotencyStore(store, {
  maxBytesPerEnvironment: config.idempotencyMaxBytesPerEnvironment,
});

/** The query as the server's handlers get it once validated: numbers as numbers, lists as lists, the defaults set. */
function query(raw: Record<string, unknown>, numbers: string[], lists: string[], defaults: Record<string, unknown>) {
  const typed: Record<string, unknown> = { ...defaults, ...raw };
  for (const name of numbers) if (typeof raw[name] === "string") typed[name] = Number(raw[name]);
  for (const name of lists) if (typeof raw[name] === "string") typed[name] = [raw[name]];
  if (typeof raw.includeCursor === "string") typed.includeCursor = raw.includeCursor === "true";
  return typed;
}

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.use(express.json());
app.get("/v2/subscribers", async (req, res) => {
  const search = query(req.query as Record<string, unknown>, ["limit"], [], {
    limit: 10,
    orderBy: "_id",
    orderDirection: "DESC",
    includeCursor: false,
  });
  res.json(await store.subscribers.search(environmentId, search as never));
});
app.patch("/v2/subscribers/:subscriberId", async (req, res) => {
  const outcome = await patchAsServer(idempotency, store, {
    environmentId,
    subscriberId: req.params.subscriberId,
    body: req.body,
    key: req.header("idempotency-key") as string,
    path: req.originalUrl,
  });
  // The server's at-once PATCH answers its JSON text (D75): sent as it is, as the server sends it.
  const text = serializedText(outcome.body);
  if (text === undefined) res.status(outcome.status).json(outcome.body);
  else res.status(outcome.status).type("application/json").send(text);
});
app.get("/v1/notifications", async (req, res) => {
  const list = query(
    req.query as Record<string, unknown>,
    ["page", "limit"],
    ["channels", "templates", "emails", "subscriberIds", "severity"],
    { page: 0, limit: 10 },
  );
  const pieces = await store.notifications.pagePieces(environmentId, {
    ...list,
    after: new Date(0),
    before: new Date(),
  } as never);
  // Its pieces' bytes, as the server sends them: one string of a page over 128 KB costs V8 a large-object allocation.
  res
    .set("content-type", "application/json; charset=utf-8")
    .send(Buffer.concat(pieces.map((piece) => Buffer.from(piece))));
});
app.get("/v1/notifications/:notificationId", async (req, res) => {
  res.type("application/json").send((await store.notifications.answer(environmentId, req.params.notificationId))?.text);
});

const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ msg: "ready", api: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`,
  );
});
process.on("SIGTERM", () => {
  server.close(() => void opened.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
