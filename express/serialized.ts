/**
 * A body a handler has as JSON text already (a store that keeps its answers serialised): returned as the typed body,
 * it is sent as it is, without parsing and stringifying again (bind.ts), and stored so for an idempotent replay.
 * Where answers are validated, its parsed value is what the validator checks. Anything else that stringifies it gets
 * the same JSON through `toJSON`.
 */
class SerializedBody {
  readonly pieces: readonly string[];
  constructor(pieces: readonly string[]) {
    this.pieces = pieces;
  }
  get text(): string {
    return this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join("");
  }
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * `json`, the JSON of a `T`, as a handler's body: `return { status: 200, body: serialized<Page>(text) }`. Or the
 * pieces whose concatenation is that JSON, for a large body: they are written into the answer's bytes one after the
 * other, where one string of it all over 128 KB would cost V8 a large-object allocation per answer (0.7 ms for a page
 * of 50 notifications, measured). The types take your word that it is a `T`; in development (answers validated, the
 * default unless NODE_ENV is production) it is parsed and checked against the spec like any other body.
 */
export function serialized<T>(json: string | readonly string[]): T {
  return new SerializedBody(typeof json === "string" ? [json] : json) as unknown as T;
}

/** Whether `body` was made by `serialized`. */
export function isSerialized(body: unknown): boolean {
  return body instanceof SerializedBody;
}

/** The text of a body made by `serialized`, else undefined. */
export function serializedText(body: unknown): string | undefined {
  return body instanceof SerializedBody ? body.text : undefined;
}

/** The UTF-8 bytes of a body made by `serialized`, written piece by piece into one buffer; else undefined. */
export function serializedBytes(body: unknown): Buffer | undefined {
  if (!(body instanceof SerializedBody)) return undefined;
  let size = 0;
  for (const piece of body.pieces) size += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of body.pieces) at += bytes.write(piece, at);
  return bytes;
}
