/**
 * A Fastify app with the contract's router under /api through @fastify/express. Express middleware runs before
 * Fastify's routing and body parsing, so the contract's routes parse their own bodies, and the Fastify route that
 * overlaps a contract pattern is in the router's `passThrough`.
 */
import fastifyExpress from "@fastify/express";
import Fastify from "fastify";
import { contractRouter, listening } from "./contract.js";

const app = Fastify();
await app.register(fastifyExpress);
app.use("/api", contractRouter());
app.get("/api/health", async () => ({ app: "fastify", ok: true }));
app.get("/api/v1/notifications/stats", async () => ({ app: "fastify", stats: true }));
app.post("/api/echo", async (request) => ({ app: "fastify", echoed: request.body }));

await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
const address = app.server.address();
listening("Fastify", typeof address === "object" && address ? address.port : 0);
