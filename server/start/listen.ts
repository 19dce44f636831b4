/** Listening on the configured host and port; a port in use is a refused start that says so, not a stack trace. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpServer } from "@novu-query/express";
import type { Express } from "express";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { StartRefused } from "./demo-keys.js";

export interface Listening {
  server: Server;
  /** The API's URL: http://host:port. */
  base: string;
}

export async function listen(app: Express, config: Config, logger: Logger): Promise<Listening> {
  const server = createHttpServer(app, config, logger);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve).once("error", reject);
      server.listen(config.port, config.host);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      throw new StartRefused(
        `Port ${config.port} on ${config.host} is in use by another program: stop it, or set PORT to another port.`,
      );
    }
    if (code === "EACCES" || code === "EADDRNOTAVAIL") {
      throw new StartRefused(`Cannot listen on ${config.host}:${config.port} (${code}): check HOST and PORT.`);
    }
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}` };
}
