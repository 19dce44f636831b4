/**
 * A body a handler has as JSON text already (a store that keeps its answers serialised): returned as the typed body,
 * it is sent as it is, without parsing and stringifying again (bind.ts), and stored so for an idempotent replay.
 * Where answers are validated, its parsed value is what the validator checks. Anything else that stringifies it gets
 * the same JSON through `toJSON`.
 */
class SerializedBody {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * `text`, the JSON of a `T`, as a handler's body: `return { status: 200, body: serialized<Page>(text) }`. The types
 * take your word that it is a `T`; in development (answers validated, the default unless NODE_ENV is production) it
 * is parsed and checked against the spec like any other body.
 */
export function serialized<T>(text: string): T {
  return new SerializedBody(text) as unknown as T;
}

/** The text of a body made by `serialized`, else undefined. */
export function serializedText(body: unknown): string | undefined {
  return body instanceof SerializedBody ? body.text : undefined;
}
