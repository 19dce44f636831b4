/**
 * Two finishing steps for the generated zod schemas, on the TypeScript syntax tree of @hey-api/openapi-ts's output:
 *
 * - every exported schema is built inside a `/*#__PURE__*\/` call, so that a bundler keeps only the schemas an app
 *   imports and what they refer to (a bare `z.object(...)` at the top of a module is a call a bundler must keep);
 * - each check carries a message a form can show: a pattern's from the spec (`x-pattern-message`), a length, an
 *   e-mail address and a URL in plain words, instead of zod's "Invalid string: must match pattern /^(UTC|.../".
 */
import ts from "typescript";

/** A pattern (as the spec writes it) and the message a value that breaks it gets. */
export type PatternMessages = Map<string, string>;

/** Every `pattern` of the spec that has an `x-pattern-message`. */
export function patternMessages(spec: unknown): PatternMessages {
  const found: PatternMessages = new Map();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      const { pattern, "x-pattern-message": message } = node as Record<string, unknown>;
      if (typeof pattern === "string" && typeof message === "string") found.set(pattern, message);
      Object.values(node).forEach(walk);
    }
  };
  walk(spec);
  return found;
}

interface Edit {
  at: number;
  end: number;
  text: string;
}

/** The innermost call of a chain (`z.string()` in `z.string().max(5).regex(...)`): its callee as text. */
function chainRoot(node: ts.Expression, source: ts.SourceFile): string {
  let at: ts.Expression = node;
  while (ts.isCallExpression(at) && ts.isPropertyAccessExpression(at.expression)) {
    const inner = at.expression.expression;
    if (!ts.isCallExpression(inner)) break;
    at = inner;
  }
  return ts.isCallExpression(at) ? at.expression.getText(source) : "";
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** The message of one check, or undefined to leave zod's. */
function messageOf(call: ts.CallExpression, source: ts.SourceFile, patterns: PatternMessages): string | undefined {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && callee.expression.getText(source) === "z") {
    if (callee.name.text === "email") return "Must be an e-mail address such as maya.patel@example.com";
    if (callee.name.text === "url") return "Must be a URL such as https://example.com/hooks/chat";
    return undefined;
  }
  if (!ts.isPropertyAccessExpression(callee) || call.arguments.length !== 1) return undefined;
  const check = callee.name.text;
  const [argument] = call.arguments;
  if (check === "regex" && argument && ts.isRegularExpressionLiteral(argument)) {
    const source = argument.text.slice(1, argument.text.lastIndexOf("/"));
    return patterns.get(source) ?? patterns.get(source.replaceAll("\\/", "/"));
  }
  if (!argument || !ts.isNumericLiteral(argument)) return undefined;
  const count = Number(argument.text);
  const root = chainRoot(callee.expression, source);
  if (root === "z.string" || root === "z.email") {
    if (check === "min") return count === 1 ? "Must not be empty" : `Must be at least ${plural(count, "character")}`;
    if (check === "max") return `Must be at most ${plural(count, "character")}`;
    if (check === "length") return `Must be exactly ${plural(count, "character")}`;
  }
  if (root === "z.array") {
    if (check === "min") return `Must have at least ${plural(count, "value")}`;
    if (check === "max") return `Must have at most ${plural(count, "value")}`;
  }
  return undefined;
}

/** The generated module with its schemas pure and its checks worded for people. */
export function finishZodModule(text: string, patterns: PatternMessages): string {
  const source = ts.createSourceFile("zod.gen.ts", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: Edit[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.arguments.length <= 1) {
      const message = messageOf(node, source, patterns);
      if (message !== undefined) {
        const options = `{ error: ${JSON.stringify(message)} }`;
        const close = node.getEnd() - 1;
        edits.push({ at: close, end: close, text: node.arguments.length === 0 ? options : `, ${options}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const initializer = declaration.initializer;
      if (!initializer) continue;
      visit(initializer);
      edits.push({
        at: initializer.getStart(source),
        end: initializer.getStart(source),
        text: "/*#__PURE__*/ (() => ",
      });
      edits.push({ at: initializer.getEnd(), end: initializer.getEnd(), text: ")()" });
    }
  }
  // From the end, so that each edit's offsets are still those of the original text; at one offset, the later first.
  edits.sort((a, b) => b.at - a.at);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.at) + edit.text + out.slice(edit.end);
  return out;
}
