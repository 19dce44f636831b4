/**
 * The `Authorization` header as Novu reads it, in one place: the skeleton's authentication and the MSW handlers both
 * call `readAuthorization`, so that every header shape gets the same answer from both (test/mock/authentication.test.ts
 * sends each to MSW and to the server). `ApiKey <key>` only, the scheme word case-sensitive; whatever follows the
 * scheme is the key, spaces and all (a key with a space in it is then simply not found).
 */
import { messages } from "./messages.js";

/** A 401 before any key is looked up, by the spec's example it is an instance of, with this request's message. */
export interface AuthorizationRefusal {
  example: "UnauthorizedMissingHeader" | "UnauthorizedInvalidScheme" | "UnauthorizedEmptyKey";
  message: string;
}

/** The key to look up, or the 401 the header gets. A key not found is answered `keyNotFound` (`UnauthorizedKeyNotFound`). */
export function readAuthorization(header: string | null | undefined): { apiKey: string } | AuthorizationRefusal {
  if (header === undefined || header === null) {
    return { example: "UnauthorizedMissingHeader", message: messages.missingAuthorization };
  }
  const [scheme = "", ...rest] = header.trim().split(/\s+/);
  if (scheme !== "ApiKey") {
    // Named in the message as sent, cut short: a header is no place for a long echo.
    return { example: "UnauthorizedInvalidScheme", message: messages.invalidScheme(scheme.slice(0, 64)) };
  }
  const apiKey = rest.join(" ");
  if (apiKey === "") return { example: "UnauthorizedEmptyKey", message: messages.emptyKey };
  return { apiKey };
}

/** The 401 of a key that was read but is not known. */
export const keyNotFound = { example: "UnauthorizedKeyNotFound", message: messages.keyNotFound } as const;
