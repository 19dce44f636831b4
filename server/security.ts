import cors from "cors";
import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * The headers a helmet middleware sets, worked out once: they are the same for every answer, so each answer gets them
 * from one loop instead of a dozen middlewares calling each other (measured: a tenth of a get's time).
 */
function headersOf(middleware: RequestHandler): [string, string][] {
  const headers: [string, string][] = [];
  const response = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => {},
    getHeader: () => undefined,
  };
  middleware({} as never, response as never, () => {});
  return headers;
}

// A JSON API: no sniffing, no framing, no caching, no content of its own to load.
const jsonApiHeaders: [string, string][] = [
  ["Cache-Control", "no-store"],
  ...headersOf(
    helmet({
      contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      crossOriginResourcePolicy: { policy: "cross-origin" },
    }),
  ),
];

/**
 * Security headers for every answer but the docs page itself (`/docs`, `/docs/`), which gets its own
 * (docsSecurityHeaders); `/docsx` and `/docs/x` are 404s like any other and get these.
 */
export const apiSecurityHeaders: RequestHandler = (req, res, next) => {
  if (req.path === "/docs" || req.path === "/docs/") return next();
  for (const [name, value] of jsonApiHeaders) res.setHeader(name, value);
  next();
};

/** Redoc runs from inline scripts and styles in its one self-contained file. */
export const docsSecurityHeaders = helmet({
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", "data:", "https:"],
      fontSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", "blob:"],
      frameAncestors: ["'none'"],
    },
  },
});

/**
 * CORS for an allow-list of origins ("*" for any), exposing the headers a browser client needs to read. `Prefer` is
 * allowed so that one app can switch between this server (which ignores it) and the Prism mock (which obeys it).
 */
export function corsFor(origins: string[]): RequestHandler {
  return cors({
    origin: origins.includes("*") ? "*" : origins,
    methods: ["GET", "PATCH"],
    allowedHeaders: ["Authorization", "Content-Type", "idempotency-key", "Prefer", "X-Request-Id"],
    exposedHeaders: [
      "X-Request-Id",
      "Idempotency-Key",
      "Idempotency-Replay",
      "Retry-After",
      "Link",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
    ],
    maxAge: 600,
  });
}
