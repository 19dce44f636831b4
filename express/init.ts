/**
 * `novu-query-express init [dir] [--router]`: a service on the skeleton, in the team's own repository. Writes what is
 * missing of `src/server.ts` (the app entry; with `--router`, for an app that exists already, `src/contract-router.ts`,
 * a module exporting the router to mount instead), `src/auth.ts` (the API-key hook), `tsconfig.json`, and one handler
 * stub per operation in `src/handlers/`; never changes a file that exists, but for registering a new stub in the
 * handlers' index. Run it again after upgrading the contract: new operations get stubs, changed ones fail to compile.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { operationIds } from "@novu-query/contract/operations";
import { scaffold } from "./scaffold.js";

const serverSource = `/**
 * The service: your handlers inside the contract's validated pipeline (authentication, validation, Novu's errors,
 * idempotency). PORT and HOST choose where it listens (default 127.0.0.1:8080).
 */
import type { AddressInfo } from "node:net";
import { createApp, createHttpServer, MemoryIdempotencyStore } from "@novu-query/express";
import { authenticate } from "./auth.js";
import { handlers } from "./handlers/index.js";

const app = createApp({
  handlers,
  authenticate,
  // Novu's SDK sends an idempotency key with every PATCH. This store keeps answers in this process, which is right
  // for one instance; several instances need an IdempotencyStore they share (your database).
  idempotency: { store: new MemoryIdempotencyStore() },
});

const host = process.env.HOST ?? "127.0.0.1";
const server = createHttpServer(app).listen(Number(process.env.PORT ?? 8080), host, () => {
  const { port } = server.address() as AddressInfo;
  console.log(\`Notification query API on http://\${host}:\${port}\`);
});
`;

const routerSource = `/**
 * The contract's routes for the app you have: mount the router where the API lives, and its error handler right after
 * it, on the same path (the contract's answers for errors your own middleware raises on its routes):
 *
 *   app.use("/api", contractRouter);
 *   app.use("/api", contractRouter.errorHandler);
 *
 * It claims the contract's method-and-path pairs only; every other request goes on to your routes.
 */
import { createRouter, MemoryIdempotencyStore } from "@novu-query/express";
import { authenticate } from "./auth.js";
import { handlers } from "./handlers/index.js";

export const contractRouter = createRouter({
  handlers,
  authenticate,
  // Novu's SDK sends an idempotency key with every PATCH. This store keeps answers in this process, which is right
  // for one instance; several instances need an IdempotencyStore they share (your database; docs/backend.md).
  idempotency: { store: new MemoryIdempotencyStore() },
});
`;

const authSource = `/**
 * Who may call the API. Replace the list of keys with your own lookup (a table of hashed keys: \`keyHash\` is the
 * key's SHA-256): return what your handlers need to know of the caller, or undefined for Novu's 401 "API Key not
 * found". Missing, malformed and empty keys are answered before this runs.
 */
import type { Authenticate } from "@novu-query/express";

declare module "@novu-query/express" {
  /** What \`authenticate\` returns for a valid key; every handler gets it as \`context.auth\`. */
  interface AuthContext {
    /** The environment the key belongs to: scope every read and write to it (idempotency keys are scoped by it too). */
    environmentId: string;
  }
}

/** API_KEYS="key:environment,key2:environment2"; by default one key for development. */
const keys = new Map(
  (process.env.API_KEYS ?? "dev-key:development").split(",").map((entry) => {
    const [key = "", environment = "development"] = entry.split(":");
    return [key, environment] as const;
  }),
);

export const authenticate: Authenticate = ({ apiKey }) => {
  const environmentId = keys.get(apiKey);
  return environmentId === undefined ? undefined : { environmentId };
};
`;

const tsconfigSource = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      rootDir: "src",
      outDir: "dist",
    },
    include: ["src"],
  },
  null,
  2,
)}\n`;

export interface InitResult {
  /** Files written, relative to the folder. */
  written: string[];
  /** What the folder still needs, in words, or nothing. */
  notes: string[];
}

/** Frameworks whose presence says the folder is an app already, where a router to mount fits better than a server. */
const frameworks = ["express", "fastify", "@nestjs/core", "koa", "hono"];

/** Writes what is missing of the service in `dir`: with `router`, a router module for an existing app, no server. */
export function init(dir: string, { router = false }: { router?: boolean } = {}): InitResult {
  const written: string[] = [];
  const writeNew = (file: string, source: string) => {
    const path = join(dir, file);
    if (existsSync(path)) return;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, source);
    written.push(file);
  };
  writeNew("tsconfig.json", tsconfigSource);
  writeNew(router ? "src/contract-router.ts" : "src/server.ts", router ? routerSource : serverSource);
  writeNew("src/auth.ts", authSource);
  written.push(...scaffold(operationIds, join(dir, "src", "handlers")).map((file) => relative(dir, file)));

  const notes: string[] = [];
  const manifest = join(dir, "package.json");
  const pkg = existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")) : undefined;
  if (pkg?.type !== "module") notes.push('The code is ES modules: set "type": "module" (npm pkg set type=module).');
  if (!pkg?.dependencies?.["@novu-query/express"]) notes.push("Install the skeleton: npm install @novu-query/express");
  if (!pkg?.devDependencies?.typescript) notes.push("Install TypeScript to run it: npm install -D typescript tsx");
  const framework = frameworks.find((name) => pkg?.dependencies?.[name]);
  if (framework && !router && written.includes("src/server.ts")) {
    notes.push(
      `This is a ${framework} app already: \`init --router\` writes src/contract-router.ts, a router to mount in it, instead of a server of its own (delete src/server.ts).`,
    );
  }
  return { written: written.sort(), notes };
}
