/**
 * Credentials sent where they do not belong (`?apiKey=...` in a URL) kept out of what is echoed and logged: the
 * error body's `path`, a 422's `value`, the request log.
 */
const secretNames = /^(api[-_]?key|key|token|access[-_]?token|secret|password|authorization)$/i;

export const redacted = "[redacted]";

/** Whether a query parameter of this name holds a credential. */
export function isSecretParameter(name: string): boolean {
  return secretNames.test(name);
}

/** The URL with the values of credential-named query parameters replaced (the rest as it was sent). */
export function redactUrl(url: string): string {
  const at = url.indexOf("?");
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const name = equals < 0 ? pair : pair.slice(0, equals);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, " "));
      } catch {
        // A name that is not percent-encoded UTF-8 is not one of ours.
      }
      return equals >= 0 && isSecretParameter(decoded) ? `${name}=${redacted}` : pair;
    });
  return `${url.slice(0, at)}?${query.join("&")}`;
}
