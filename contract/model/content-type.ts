/**
 * A request body's `Content-Type` as the contract reads it: `application/json` (the one media type the spec declares,
 * D6; in any case, as media types are), with no charset or `utf-8`. Novu's body parser (body-parser, as an Express
 * host's own `express.json()`) knows UTF-8 by that name only: `utf8` and `us-ascii` are refused there too. A JSON body
 * in another charset would be decoded into other text than the client meant to store (`+ADw-` is `<` in UTF-7);
 * another media type (`application/merge-patch+json`, whose `data` would merge where this PATCH replaces it) is not
 * what the operation reads.
 */
import { messages } from "./messages.js";

/** Why a body's Content-Type is refused with 415, or undefined when it is JSON in a charset the contract reads. */
export function contentTypeProblem(contentType: string | null | undefined): string | undefined {
  const [type = "", ...parameters] = (contentType ?? "").split(";").map((part) => part.trim());
  if (!/^application\/json$/i.test(type)) return messages.notJson;
  const charset = parameters
    .map((parameter) => /^charset\s*=\s*"?([^";]*)"?$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  if (charset !== undefined && !/^utf-8$/i.test(charset)) return messages.notUtf8(charset);
  return undefined;
}
