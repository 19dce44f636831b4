/**
 * The repository's two TypeScript compilers, by path (both install a `tsc` command, so node_modules/.bin/tsc is
 * whichever npm linked last). TypeScript 5.9 compiles the packages (`npm run build:packages`: the JavaScript and the
 * declarations that users install) and is the version openapi-typescript's generator runs on; TypeScript 7, the
 * native compiler, type-checks the repository (`npm run typecheck`, vitest's type tests, the kits' copies) in about
 * a fifth of 5.9's time (measured on this repository: 5.6 s against 25 s on two cores). The packaging tests check
 * apps under both.
 */
import { fileURLToPath } from "node:url";

/** TypeScript 5.9's `tsc`: compiles the packages. */
export const tsc5 = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));

/** TypeScript 7's `tsc`: type-checks the repository. */
export const tsc7 = fileURLToPath(new URL("../node_modules/typescript-7/bin/tsc", import.meta.url));
