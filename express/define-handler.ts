/**
 * `handler(operationId, implementation)`: how a handler is defined, so that its answer is checked for exactness
 * against the spec at compile time (handler-types.ts has the types it builds on).
 */
import type { OperationId } from "@novu-query/contract/operations";
import type { Handler, HandlerContext, HandlerInput, HandlerResult } from "./handler-types.js";

type ObjectPart<S> = Exclude<Extract<S, object>, readonly unknown[]>;
type ElementOf<S> = S extends readonly (infer E)[] ? E : never;
type KeysOf<S> = S extends unknown ? keyof S : never;
type PropertyOf<S, P> = S extends unknown ? (P extends keyof S ? S[P] : never) : never;

type Depth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/**
 * The dotted path of each field of T that Shape does not declare, at any depth (never when there is none). Where
 * Shape is a union, a field is known when one of its members declares it. A value typed as its shape is exact as it
 * is (this also ends the walk through the spec's recursive schemas); the walk stops ten levels down.
 */
export type UndeclaredFields<T, Shape, D extends number = 10> = [D] extends [never]
  ? never
  : [T] extends [Shape]
    ? [Shape] extends [T]
      ? never
      : FieldsOf<T, Shape, Depth[D]>
    : FieldsOf<T, Shape, Depth[D]>;

type FieldsOf<T, Shape, D extends number> = T extends readonly (infer E)[]
  ? UndeclaredFields<E, ElementOf<Shape>, D>
  : T extends object
    ? [ObjectPart<Shape>] extends [never]
      ? never
      : {
          [P in keyof T & string]-?: P extends KeysOf<ObjectPart<Shape>>
            ? UndeclaredFields<T[P], PropertyOf<ObjectPart<Shape>, P>, D> extends infer Inner extends string
              ? [Inner] extends [never]
                ? never
                : `${P}.${Inner}`
              : never
            : P;
        }[keyof T & string]
    : never;

/**
 * Defines the handler of one operation. The input, the context's error helpers and the answer are typed from the
 * spec, and the answer must be exact: a field the contract does not declare (`{ ...row, secret }`) does not compile,
 * even where TypeScript's own excess-property check does not look (a spread, a variable, a nested object). The
 * compiler's message names it (`not in the contract: body.secret`), in an editor and in tsc's output alike: the
 * implementation is asked to also be an object with a property of that name, which no function is.
 */
export function handler<K extends OperationId, R extends HandlerResult<K>>(
  _id: K,
  implementation: ((input: HandlerInput<K>, context: HandlerContext<K>) => Promise<R>) &
    NoInfer<ExactAnswer<UndeclaredFields<R, HandlerResult<K>>>>,
): Handler<K> {
  return implementation;
}

/** Nothing to add when the answer is exact; else a property whose name says which fields are not in the contract. */
type ExactAnswer<Undeclared extends string> = [Undeclared] extends [never]
  ? unknown
  : { [Name in `not in the contract: ${Undeclared}`]: Name };
