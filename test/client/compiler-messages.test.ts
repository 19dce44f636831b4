/**
 * What the compiler says about a typo in a call of the typed client (TypeScript 5.9, this repository's; the
 * frontend-app test asks TypeScript 7 the same): each message names what is wrong, a PATCH body field included, which
 * openapi-fetch infers as a type parameter and TypeScript's own excess-property check therefore does not look at.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const folder = join(root, "test-output", `compiler-messages-${process.pid}`);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Each line of `calls` compiled in one file: the messages tsc prints, by line. */
function messagesOf(calls: string[]): string[][] {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "typos.ts");
  const header = `import { createClient } from "@novu-query/contract";\nconst api = createClient({ baseUrl: "/api", apiKey: "x" });\n`;
  writeFileSync(
    file,
    `${header}export async function f() {\n${calls.map((call) => `  await ${call};`).join("\n")}\n}\n`,
  );
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json did not parse");
  const program = ts.createProgram([file], config.options);
  const byLine: string[][] = calls.map(() => []);
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) continue;
    const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line - 3;
    byLine[line]?.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
  }
  return byLine;
}

describe("the compiler's message for a typo in a client call", () => {
  it("names the wrong body field, query parameter, path parameter and path in one message each, and nothing for a right call", () => {
    const [body, query, pathParameter, path, postPath, right, two, none] = messagesOf([
      `api.PATCH("/v2/subscribers/{subscriberId}", { params: { path: { subscriberId: "a" } }, body: { first_name: "Ada" } })`,
      `api.GET("/v2/subscribers", { params: { query: { emial: "a@example.com" } } })`,
      `api.GET("/v1/notifications/{notificationId}", { params: { path: { notificationID: "x" } } })`,
      `api.GET("/v2/subscriber")`,
      `api.PATCH("/v2/subscriber/{subscriberId}", { params: { path: { subscriberId: "a" } }, body: {} })`,
      `api.PATCH("/v2/subscribers/{subscriberId}", { params: { path: { subscriberId: "a" } }, body: { firstName: "Ada", data: { plan: "pro" } } })`,
      `api.PATCH("/v2/subscribers/{subscriberId}", { params: { path: { subscriberId: "a" } }, body: { nickname: "Ada", TimeZone: "UTC" } })`,
      `api.GET()`,
    ]);
    // One message, whose first line names the field: not "No overload matches this call" with the field six lines on.
    expect(body).toHaveLength(1);
    expect(body?.[0]?.split("\n")[0]).toContain("not in the contract: body.first_name (did you mean firstName?)");
    expect(body?.join("\n")).not.toContain("No overload");
    expect(query?.join("\n")).toContain("'emial' does not exist");
    expect(pathParameter?.join("\n")).toContain("'notificationID' does not exist");
    expect(path?.join("\n")).toContain("not a GET path of the contract: /v2/subscriber");
    expect(postPath?.join("\n")).toContain("not a PATCH path of the contract: /v2/subscriber/{subscriberId}");
    expect(right).toEqual([]);
    // A field with no near name is named alone; each wrong field is named.
    expect(two?.join("\n")).toContain("not in the contract: body.nickname");
    expect(two?.join("\n")).not.toContain("body.nickname (did you mean");
    expect(two?.join("\n")).toContain("body.TimeZone (did you mean timezone?)");
    expect(none?.join("\n")).toContain("GET needs a path of the contract");
    expect([query, path, postPath, two, none].flat().join("\n")).not.toContain("No overload");
  }, 60_000);
});
