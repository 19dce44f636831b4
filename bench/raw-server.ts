/**
 * The ceiling: plain node:http answering every request with a body captured from the real server, of the same size
 * and content type, without routing, auth, validation or a database.
 * Usage: tsx bench/raw-server.ts <bodies.json>   (an object of "METHOD /path-prefix" → body; prints its URL)
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

const bodies = Object.entries(JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as Record<string, string>)
  .map(([route, body]) => {
    const [method, prefix] = route.split(" ") as [string, string];
    return { method, prefix, body: Buffer.from(body) };
  })
  // The longest prefix first, so that /v1/notifications/{id} wins over /v1/notifications.
  .sort((a, b) => b.prefix.length - a.prefix.length);

const server = http.createServer((req, res) => {
  const match = bodies.find((entry) => entry.method === req.method && (req.url ?? "").startsWith(entry.prefix));
  req.resume();
  req.on("end", () => {
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": match.body.length });
    res.end(match.body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ msg: "ready", api: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`,
  );
});
