/**
 * The typed client's GET and PATCH: openapi-fetch's, with compiler messages that name what is wrong. A path the
 * contract lacks says `not a GET path of the contract: /v2/subscriber`, and a PATCH body field it lacks says
 * `not in the contract: body.first_name (did you mean firstName?)` (openapi-fetch infers its options as a type
 * parameter, so TypeScript's own excess-property check does not look at the body). Query and path parameters are
 * checked by TypeScript itself (`'emial' does not exist ... Did you mean to write 'email'?`).
 *
 * Each method's first signature takes no argument and cannot be called (its `this` is a sentence no object is): it is
 * there so that tools taking an openapi-fetch `Client` (openapi-react-query's `createClient`) accept this client as it
 * is, a signature with fewer parameters being assignable to any. A call passes a path, so TypeScript sets that
 * signature aside by its arity and reports the other's error alone, in one message whose first line names the wrong
 * field (no "No overload matches this call"); a call without a path says `GET needs a path of the contract`.
 */
import type { FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import type { PathsWithMethod, RequiredKeysOf } from "openapi-typescript-helpers";
import type { paths } from "../generated/schema.js";

type Method = "get" | "patch";
type PathOf<M extends Method> = PathsWithMethod<paths, M>;

/** openapi-fetch's final init parameter: optional when nothing in it is required. */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

type Answer<M extends Method, Path extends PathOf<M>, Init> = Promise<
  FetchResponse<NonNullable<paths[Path][M]>, Init, `${string}/${string}`>
>;

/** The request body an operation declares (never for a GET). */
type BodyOf<M extends Method, Path extends PathOf<M>> =
  MaybeOptionalInit<paths[Path], M> extends { body?: infer Body } ? Body : never;

/** The names of the body fields given that the declared body lacks. A body typed as a record names none. */
type UnknownBodyFields<Init, Body> = Init extends { body?: infer Given }
  ? string extends keyof Given
    ? never
    : Exclude<keyof Given & string, keyof NonNullable<Body>>
  : never;

/** A name without case, `_` or `-`: `first_name`, `FirstName` and `firstName` are one. */
type Squashed<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? Squashed<`${Head}${Tail}`>
  : Name extends `${infer Head}-${infer Tail}`
    ? Squashed<`${Head}${Tail}`>
    : Lowercase<Name>;

/** The declared field a wrong one most likely meant (the same but for case, `_` and `-`), or never. */
type Meant<Wrong extends string, Fields extends string> = {
  [Field in Fields]: Squashed<Field> extends Squashed<Wrong> ? Field : never;
}[Fields];

/** `body.first_name`, with `(did you mean firstName?)` when a declared field is the same but for case, `_` or `-`. */
type Named<Wrong extends string, Fields extends string> = Wrong extends string
  ? [Meant<Wrong, Fields>] extends [never]
    ? `body.${Wrong}`
    : `body.${Wrong} (did you mean ${Meant<Wrong, Fields>}?)`
  : never;

/** Nothing to add when the body is exact; else a property whose name says which fields are not in the contract. */
type ExactBody<Undeclared extends string, Body> = [Undeclared] extends [never]
  ? unknown
  : { [Name in `not in the contract: ${Named<Undeclared, keyof NonNullable<Body> & string>}`]: Name };

export interface ExactMethod<M extends Method> {
  (this: `${Uppercase<M>} needs a path of the contract`): never;
  // `string & {}` keeps editors offering the contract's paths while any text is taken, so that a wrong one is named.
  <
    Path extends PathOf<M> | (string & {}),
    Init extends Path extends PathOf<M> ? MaybeOptionalInit<paths[Path], M> : unknown,
  >(
    url: Path extends PathOf<M> ? Path : `not a ${Uppercase<M>} path of the contract: ${Path}`,
    ...init: Path extends PathOf<M>
      ? InitParam<Init & NoInfer<ExactBody<UnknownBodyFields<Init, BodyOf<M, Path>>, BodyOf<M, Path>>>>
      : [unknown?]
  ): Path extends PathOf<M> ? Answer<M, Path, Init> : never;
}
