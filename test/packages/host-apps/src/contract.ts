/**
 * The contract's router as the three host apps mount it: the team's handlers and key hook (written by `init` and the
 * backend-app fixture), idempotency in this process, and the host's own route beside the contract's patterns left
 * to the host.
 */
import { createRouter, MemoryIdempotencyStore } from "@novu-query/express";
import { authenticate } from "./auth.js";
import { handlers } from "./handlers/index.js";

export function contractRouter() {
  return createRouter({
    handlers,
    authenticate,
    idempotency: { store: new MemoryIdempotencyStore() },
    // Novu's own route beside GET /v1/notifications/{notificationId}: the host answers it.
    passThrough: ["GET /v1/notifications/stats"],
  });
}

/** What every host prints once it listens; the test reads the URL from it. */
export function listening(framework: string, port: number): void {
  console.log(`${framework} host listening on http://127.0.0.1:${port}`);
}
