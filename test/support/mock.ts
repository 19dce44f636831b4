import { createServer } from "node:net";
import { type PrismProcess, startMock as startPrismMock } from "../../mock/prism.js";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The static Prism mock (`npm run mock`) on a free port. */
export async function startMock(): Promise<PrismProcess> {
  return startPrismMock({ port: await freePort() });
}
