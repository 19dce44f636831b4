/**
 * A request body's `Content-Type` as the contract reads it: JSON, in UTF-8 (or ASCII, its subset). A JSON body in
 * another charset would be decoded into other text than the client meant to store (`+ADw-` is `<` in UTF-7).
 */
import { messages } from "./messages.js";

/** Why a body's Content-Type is refused with 415, or undefined when it is JSON in a charset the contract reads. */
export function contentTypeProblem(contentType: string | null | undefined): string | undefined {
  const [type = "", ...parameters] = (contentType ?? "").split(";").map((part) => part.trim());
  if (!/^application\/(?:[\w.+-]+\+)?json$/i.test(type)) return messages.notJson;
  const charset = parameters
    .map((parameter) => /^charset\s*=\s*"?([^";]*)"?$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  if (charset !== undefined && !/^(utf-?8|us-ascii)$/i.test(charset)) return messages.notUtf8(charset);
  return undefined;
}
