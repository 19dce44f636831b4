/**
 * A SQL script cut into its statements, each to be sent alone: Citus forwards some commands to its workers as the
 * text they came in, and a worker refuses a text of several commands. Semicolons inside quotes ('...', "..."),
 * dollar-quoted bodies ($$...$$, $tag$...$tag$) and comments (line and block) do not end a statement.
 */
export function sqlStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    const text = script.slice(start, end).trim();
    if (text.replace(/--[^\n]*|\s+/g, "") !== "") statements.push(text);
    start = end + 1;
  };
  while (i < script.length) {
    const rest = script.slice(i);
    if (rest.startsWith("--")) {
      const end = script.indexOf("\n", i);
      i = end === -1 ? script.length : end + 1;
    } else if (rest.startsWith("/*")) {
      const end = script.indexOf("*/", i + 2);
      i = end === -1 ? script.length : end + 2;
    } else if (script[i] === "'" || script[i] === '"') {
      const quote = script[i] as string;
      let j = i + 1;
      // A doubled quote is the quote itself.
      while (j < script.length && !(script[j] === quote && script[j + 1] !== quote)) j += script[j] === quote ? 2 : 1;
      i = j + 1;
    } else if (script[i] === "$" && /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.test(rest)) {
      const tag = (rest.match(/^\$([A-Za-z_][A-Za-z0-9_]*)?\$/) as RegExpMatchArray)[0];
      const end = script.indexOf(tag, i + tag.length);
      i = end === -1 ? script.length : end + tag.length;
    } else if (script[i] === ";") {
      flush(i);
      i += 1;
    } else {
      i += 1;
    }
  }
  flush(script.length);
  return statements;
}
