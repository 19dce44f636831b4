import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless Debian Chromium with no network of its own (this machine's network is closed anyway). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium not found at ${chromiumPath}: run \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`,
    );
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface Site {
  /** `http://localhost:<port>/`: a secure context, as service workers need. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves fixed files (path -> [content type, body]) on localhost, a page origin of its own. Other paths are 404,
 * except the favicon the browser asks for by itself: 204, so that it puts no error in the page's console.
 */
export async function serveSite(files: Record<string, [contentType: string, body: string]>): Promise<Site> {
  const server = createServer((req, res) => {
    // By path: a page's query string (`/?api=...`) is the page's, not another file.
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = files[path];
    if (!file) return res.writeHead(path === "/favicon.ico" ? 204 : 404).end();
    res.writeHead(200, { "content-type": file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, "localhost", resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
