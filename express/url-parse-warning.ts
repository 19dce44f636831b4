/**
 * Node's `url.parse()` warning (DEP0169) settled once, so that the validator's `url.parse()` of every request stops
 * paying for it. Until Node has printed that warning, each `url.parse()` walks the caller's stack to see whether it
 * comes from node_modules, and a call from there never prints it: express-openapi-validator parses every request's URL
 * with `url.parse()` from node_modules, so on Node 24 every request walked the stack, for as long as the process ran
 * (about 1.5 µs a call from a shallow stack; a read by id through this router 312 µs of CPU before, 298 after, medians
 * of three rounds: docs/decisions.md D65). Node 20 does not look at the stack.
 *
 * One `url.parse()` from a script outside node_modules, with deprecation warnings silenced for that one call, makes Node
 * take the warning as given. What that costs: a `url.parse()` in the app's own code no longer prints DEP0169 either.
 */
import { parse } from "node:url";
import { runInThisContext } from "node:vm";

let settled = false;

export function settleUrlParseWarning(): void {
  if (settled) return;
  settled = true;
  const silenced = process.noDeprecation;
  process.noDeprecation = true;
  try {
    // A script of its own, named outside node_modules: the frame Node looks at when it decides whether to warn.
    const callParse = runInThisContext("(parse) => parse('/')", { filename: "novu-query-url-parse-warning" });
    callParse(parse);
  } finally {
    process.noDeprecation = silenced;
  }
}
