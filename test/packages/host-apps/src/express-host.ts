/**
 * An Express app of its own, with the contract's router under /api: helmet and the app's own JSON parser in front of
 * everything, its own routes before and after the router, its own error format.
 */
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler } from "express";
import helmet from "helmet";
import { contractRouter, listening } from "./contract.js";

const app = express();
app.use(helmet());
app.use(express.json());
app.get("/api/health", (_req, res) => {
  res.json({ app: "express", ok: true });
});
const contract = contractRouter();
app.use("/api", contract);
// The contract's answers for what the app's own parser refused on the contract's routes; others pass on.
app.use("/api", contract.errorHandler);
app.get("/api/v1/notifications/stats", (_req, res) => {
  res.json({ app: "express", stats: true });
});
app.post("/api/echo", (req, res) => {
  res.json({ app: "express", echoed: req.body });
});
const ownErrors: ErrorRequestHandler = (error, _req, res, _next) => {
  res.status(error.status ?? 500).json({ app: "express", error: String(error.message) });
};
app.use(ownErrors);

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  listening("Express", (server.address() as AddressInfo).port);
});
