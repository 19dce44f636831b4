/**
 * express-openapi-validator's first step for one operation (`metadataMiddleware`, which attaches the operation to
 * the request as `req.openapi`), with its route's path-to-regexp compile done once instead of on every request
 * (upstream's cdimascio/express-openapi-validator#1217; D75).
 *
 * Upstream looks the request's route up by compiling each path of its spec into a regular expression, every
 * request. Over a spec of one operation (operation-spec.ts) the lookup can only find that operation: what it attaches
 * is the same for every request but the path parameters. So the first request runs upstream's step as it is, and
 * what it attached is kept; later requests get the same, with their path parameters read by the same regular
 * expression (from the path-to-regexp the validator itself loads, with the host app's routing options), compiled
 * once. Whatever this does not repeat exactly (no route found yet, another method, a path the expression does not
 * match, a parameter that does not decode) runs upstream's step, which answers it as before.
 */
import { createRequire } from "node:module";
import type { Request, RequestHandler } from "express";

interface Compiled {
  regexp: RegExp;
  keys: Array<{ name: string }>;
}
type PathToRegexp = (path: string, options: { sensitive: boolean; strict: boolean }) => Compiled;

// The module the validator's own `require("path-to-regexp")` gets, whichever version an install puts beside it.
const requireFromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
const { pathToRegexp } = requireFromValidator("path-to-regexp") as { pathToRegexp: PathToRegexp };

/** What upstream attaches to a request, but the path parameters (express-openapi-validator's `OpenApiRequestMetadata`). */
interface Attached {
  expressRoute: string;
  openApiRoute: string;
  schema: unknown;
  serial: number;
  _responseSchema?: unknown;
}

type WithOpenApi = Request & { openapi?: Attached & { pathParams: Record<string, string> } };

/** Wraps upstream's `metadataMiddleware` step of a validator made over a spec of one operation. */
export function routeCompiledOnce(upstream: RequestHandler): RequestHandler {
  let attached: Attached | undefined;
  // The method of the request it was learnt from: a spec of one operation has one, and another one is upstream's to
  // answer (405).
  let method: string | undefined;
  // One per combination of the host app's `strict routing` and `case sensitive routing`, as upstream reads them:
  // at 2 × strict + sensitive.
  const compiled: (Compiled | undefined)[] = [];

  const learn = (req: WithOpenApi) => {
    const found = req.openapi;
    if (attached !== undefined || found === undefined) return;
    const { expressRoute, openApiRoute, schema, serial } = found;
    attached = { expressRoute, openApiRoute, schema, serial };
    method = req.method;
    if ("_responseSchema" in found) attached._responseSchema = found._responseSchema;
  };

  return (req: WithOpenApi, res, next) => {
    if (attached === undefined || req.method !== method) {
      return upstream(req, res, (error?: unknown) => {
        if (error === undefined || error === null) learn(req);
        next(error);
      });
    }
    const strict = Boolean(req.app.enabled("strict routing"));
    const sensitive = Boolean(req.app.enabled("case sensitive routing"));
    const at = (strict ? 2 : 0) + (sensitive ? 1 : 0);
    compiled[at] ??= pathToRegexp(attached.expressRoute, { sensitive, strict });
    const route = compiled[at];
    // As upstream with `useRequestUrl`: the path below the mount point.
    const matched = route.regexp.exec(req.url.split("?")[0] as string);
    if (matched === null) return upstream(req, res, next);
    const pathParams: Record<string, string> = {};
    const { keys } = route;
    try {
      // By index: an entries() iterator destructured on every request is garbage for nothing.
      for (let i = 0; i < keys.length; i++) {
        pathParams[(keys[i] as { name: string }).name] = decodeURIComponent(matched[i + 1] as string);
      }
    } catch {
      return upstream(req, res, next);
    }
    const { expressRoute, openApiRoute, schema, serial } = attached;
    // The same fields, in upstream's order.
    req.openapi = { expressRoute, openApiRoute, pathParams, schema, serial };
    if ("_responseSchema" in attached) req.openapi._responseSchema = attached._responseSchema;
    req.params = pathParams;
    next();
  };
}
