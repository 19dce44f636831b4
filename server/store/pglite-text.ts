/**
 * PGlite (0.5) decodes each text field of a result with a `TextDecoder("utf-8")`, whose WHATWG default
 * (`ignoreBOM: false`) drops a leading U+FEFF: a subscriber saved as `"\uFEFFzz"` reads back as `"zz"` on PGlite and
 * as sent on PostgreSQL. Until PGlite passes `ignoreBOM: true`, the decoders that PGlite's own code constructs get it;
 * every other caller's `TextDecoder` is the platform's, unchanged. Called before a PGlite instance is made (PGlite
 * makes its protocol parser, and its decoder, when it starts and again after a protocol error).
 */
const pgliteModule = /[/\\]@electric-sql[/\\]pglite[/\\]/;

let installed = false;

export function keepLeadingByteOrderMarks(): void {
  if (installed) return;
  installed = true;
  const Platform = globalThis.TextDecoder;
  class TextDecoder extends Platform {
    constructor(label?: string, options?: ConstructorParameters<typeof Platform>[1]) {
      // Only a decoder made without options, and only by PGlite: the stack is read once per decoder, not per decode.
      const fromPglite = options === undefined && pgliteModule.test(new Error().stack ?? "");
      super(label, fromPglite ? { ignoreBOM: true } : options);
    }
  }
  globalThis.TextDecoder = TextDecoder;
}
