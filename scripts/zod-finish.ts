/**
 * Two finishing steps for the generated zod schemas, on the TypeScript syntax tree of @hey-api/openapi-ts's output:
 *
 * - every exported schema is built inside a `/*#__PURE__*\/` call, so that a bundler keeps only the schemas an app
 *   imports and what they refer to (a bare `z.object(...)` at the top of a module is a call a bundler must keep);
 * - each check carries a message a form can show: a pattern's from the spec (`x-pattern-message`), a length, an
 *   e-mail address and a URL in plain words, instead of zod's "Invalid string: must match pattern /^(UTC|.../".
 */
import ts from "typescript";
import { type PatternMessages, type SchemaIssue, schemaMessage } from "../contract/model/schema-messages.js";

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

/** Each zod check on a number, as the schema keyword it came from. */
const numberChecks: Record<string, SchemaIssue["keyword"]> = {
  gte: "minimum",
  lte: "maximum",
  gt: "exclusiveMinimum",
  lt: "exclusiveMaximum",
};

/** The schema issue one zod check stands for, or undefined to leave zod's words. */
function issueOf(call: ts.CallExpression, source: ts.SourceFile): SchemaIssue | undefined {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && callee.expression.getText(source) === "z") {
    if (callee.name.text === "email") return { keyword: "format", format: "email" };
    if (callee.name.text === "url") return { keyword: "format", format: "uri" };
    const [values] = call.arguments;
    if (callee.name.text === "enum" && values && ts.isArrayLiteralExpression(values)) {
      const allowed = values.elements.map((element) => (ts.isStringLiteral(element) ? element.text : undefined));
      return allowed.every((value) => value !== undefined) ? { keyword: "enum", allowed } : undefined;
    }
    return undefined;
  }
  if (!ts.isPropertyAccessExpression(callee) || call.arguments.length !== 1) return undefined;
  const check = callee.name.text;
  const [argument] = call.arguments;
  if (check === "regex" && argument && ts.isRegularExpressionLiteral(argument)) {
    return { keyword: "pattern", pattern: argument.text.slice(1, argument.text.lastIndexOf("/")) };
  }
  if (!argument || !ts.isNumericLiteral(argument)) return undefined;
  const limit = Number(argument.text);
  const root = chainRoot(callee.expression, source);
  if (root === "z.string" || root === "z.email") {
    if (check === "min") return { keyword: "minLength", limit };
    if (check === "max") return { keyword: "maxLength", limit };
    if (check === "length") return { keyword: "length", limit };
  }
  if (root === "z.array") {
    if (check === "min") return { keyword: "minItems", limit };
    if (check === "max") return { keyword: "maxItems", limit };
  }
  const bound = numberChecks[check];
  if ((root === "z.int" || root === "z.number") && bound) return { keyword: bound, limit } as SchemaIssue;
  return undefined;
}

/** The message of one check (the model's schemaMessage, as the server and MSW word it), or undefined. */
function messageOf(call: ts.CallExpression, source: ts.SourceFile, patterns: PatternMessages): string | undefined {
  const issue = issueOf(call, source);
  if (issue?.keyword === "pattern") {
    // A regular expression literal escapes the slashes the spec's pattern writes bare.
    return (
      schemaMessage(issue, patterns) ??
      schemaMessage({ ...issue, pattern: issue.pattern.replaceAll("\\/", "/") }, patterns)
    );
  }
  return issue && schemaMessage(issue, patterns);
}

/** The generated module with its schemas pure and its checks worded for people. */
export function finishZodModule(text: string, patterns: PatternMessages): string {
  const source = ts.createSourceFile("zod.gen.ts", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: Edit[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.arguments.length <= 1) {
      const issue = issueOf(node, source);
      if (issue?.keyword === "length" && ts.isPropertyAccessExpression(node.expression)) {
        // `.length(n)` as the spec's minLength and maxLength, so that a short and a long value read as the server
        // words them ("Must be at least 24 characters"), not as one message of zod's own.
        const words = (keyword: "minLength" | "maxLength") =>
          JSON.stringify(schemaMessage({ keyword, limit: issue.limit }, patterns));
        edits.push({
          at: node.expression.name.getStart(source),
          end: node.getEnd(),
          text: `min(${issue.limit}, { error: ${words("minLength")} }).max(${issue.limit}, { error: ${words("maxLength")} })`,
        });
        ts.forEachChild(node, visit);
        return;
      }
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
