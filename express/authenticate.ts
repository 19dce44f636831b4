/**
 * `Authorization: ApiKey <key>` with Novu's four 401 messages (the scheme word is case-sensitive, as Novu's). Which
 * keys are valid, and what a key stands for, is the app's to say: the `authenticate` hook.
 */
import { hash } from "node:crypto";
import { readAuthorization } from "@novu-query/contract/model";
import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "./errors.js";
import type { AuthContext } from "./handler-types.js";
import { messages } from "./messages.js";

export interface ApiKeyCredentials {
  /** The key as the caller sent it. */
  apiKey: string;
  /** Its SHA-256, hexadecimal: what to store and look keys up by, and safe to log. */
  keyHash: string;
}

/**
 * Looks a key up: what the caller may see (your tenant, environment, plan), or undefined for an unknown key, which is
 * answered 401 `API Key not found`. A thrown error is a 500.
 */
export type Authenticate = (
  credentials: ApiKeyCredentials,
  request: Request,
) => AuthContext | undefined | Promise<AuthContext | undefined>;

/** What the pipeline keeps of an authenticated request, for rate limiting, idempotency and the handler. */
export interface Caller {
  auth: AuthContext;
  keyHash: string;
}

const callers = new WeakMap<Response, Caller>();

/** The caller of a request that passed authentication (undefined before, or without it). */
export function callerOf(res: Response): Caller | undefined {
  return callers.get(res);
}

export function hashApiKey(apiKey: string): string {
  return hash("sha256", apiKey, "hex");
}

/**
 * The hashes of keys that authenticated lately, so that a caller's every request does not hash its key again: a few
 * microseconds a request in the server's profile (OpenSSL's one-shot digest, cold between requests), D75. Only keys
 * that authenticated are kept (unknown keys cannot fill it), at most `maxRemembered`, forgotten all at once when full.
 */
export class RememberedHashes {
  private readonly hashes = new Map<string, string>();
  private readonly maxRemembered: number;

  constructor(maxRemembered = 1024) {
    this.maxRemembered = maxRemembered;
  }

  hashOf(apiKey: string): string {
    return this.hashes.get(apiKey) ?? hashApiKey(apiKey);
  }

  authenticated(apiKey: string, keyHash: string): void {
    if (this.hashes.has(apiKey)) return;
    if (this.hashes.size >= this.maxRemembered) this.hashes.clear();
    this.hashes.set(apiKey, keyHash);
  }
}

/**
 * A key lookup that does not answer within the time (a database stuck, or out of reach): 503 with `Retry-After`, as
 * every other wait on the database is, rather than no answer at all (and a false 408 for a body left unread).
 */
function withinLookupTime<T>(lookup: Promise<T>, timeoutMs: number): Promise<T> {
  if (timeoutMs <= 0) return lookup;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const seconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
      reject(new ApiError(503, messages.keyLookupTimeout(timeoutMs), { "Retry-After": seconds }));
    }, timeoutMs);
  });
  return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The request's Authorization as the Fetch standard reads it (MSW, a browser): every line of it joined with ", ".
 * Node keeps the first of several and drops the rest, so a second line would silently lose; joined, two keys are
 * one unknown key, answered 401 by server and mocks alike.
 */
function authorizationOf(req: Request): string | undefined {
  const lines: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === "authorization") lines.push(req.rawHeaders[i + 1] ?? "");
  }
  return lines.length === 0 ? undefined : lines.join(", ");
}

/** What limits clients that try unknown keys (rate-limit.ts's UnknownKeyLimiter). */
export interface UnknownKeyGuard {
  /** Before the lookup: an answer that replaces it (429), or undefined to look the key up. */
  beforeLookup(req: Request, keyHash: string): ApiError | undefined;
  /** After a key was not found: an answer that replaces the 401 (429), or undefined. */
  unknownKey(req: Request): Promise<ApiError | undefined>;
  /** After a key authenticated. */
  knownKey(keyHash: string): void;
}

/**
 * Answers 401 for a missing, malformed or unknown key; records the caller for the rest of the pipeline. With a
 * `guard`, a client that tried too many unknown keys is answered 429 instead.
 */
export function apiKeyAuthentication(
  authenticate: Authenticate,
  guard?: UnknownKeyGuard,
  lookupTimeoutMs = 5000,
): RequestHandler {
  const remembered = new RememberedHashes();
  return async (req, res, next) => {
    const read = readAuthorization(authorizationOf(req));
    if (!("apiKey" in read)) return next(ApiError.unauthorized(read.message));
    const { apiKey } = read;
    try {
      const keyHash = remembered.hashOf(apiKey);
      const refused = guard?.beforeLookup(req, keyHash);
      if (refused) return next(refused);
      const found = authenticate({ apiKey, keyHash }, req);
      // A hook that answers at once (a cached key) is not awaited: no extra turn of the event loop per request.
      const auth = found instanceof Promise ? await withinLookupTime(found, lookupTimeoutMs) : found;
      if (!auth) return next((await guard?.unknownKey(req)) ?? ApiError.unauthorized(messages.keyNotFound));
      guard?.knownKey(keyHash);
      remembered.authenticated(apiKey, keyHash);
      callers.set(res, { auth, keyHash });
      next();
    } catch (error) {
      next(error);
    }
  };
}
