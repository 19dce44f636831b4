/**
 * JSON pointers (RFC 6901) and `$ref`s into one document: the one implementation that the MSW handlers, the build's
 * operation table and the contract diff share. `~1` is "/" and `~0` is "~", decoded in that order.
 */

/** The pointer of a path of keys: `["paths", "/v2/subscribers"]` -> `/paths/~1v2~1subscribers`. */
export function pointerOf(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** One key of a pointer as it was: `~1` is "/", then `~0` is "~" (in that order, so `~01` is "~1"). */
export function decodeSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The keys of a pointer or a local `$ref` (`#/components/schemas/X`, `/components/schemas/X`). */
export function segmentsOf(pointer: string): string[] {
  const path = pointer.replace(/^#/, "");
  if (path === "") return [];
  return path.slice(1).split("/").map(decodeSegment);
}

/** What the pointer names in the document, or undefined where the path leaves it. */
export function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const key of segmentsOf(pointer)) {
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** The node itself, or what its `$ref` (and theirs, in turn) names in the document. */
export function resolveRef<T = Record<string, unknown>>(document: unknown, node: unknown): T {
  let current = node as { $ref?: unknown } | undefined;
  const seen = new Set<string>();
  while (typeof current?.$ref === "string") {
    if (seen.has(current.$ref)) throw new Error(`$ref cycle at ${current.$ref}`);
    seen.add(current.$ref);
    current = valueAt(document, current.$ref) as { $ref?: unknown };
  }
  return current as T;
}
