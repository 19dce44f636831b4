import spec from "@novu-query/contract/openapi.json" with { type: "json" };
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/** The contract's bundled spec, as the suite checks answers against it. */
export { spec };

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Ajv in the JSON Schema 2020-12 dialect (OpenAPI 3.1's), with the contract's bundled spec loaded as "spec". */
export function createSpecAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(spec as object, "spec");
  return ajv;
}

/** A validator for the schema at this JSON pointer of the bundled spec (e.g. "/components/schemas/Subscriber"). */
export function validatorAt(ajv: Ajv2020, pointer: string): ValidateFunction {
  return ajv.compile({ $ref: `spec#${pointer}` });
}

type Json = Record<string, unknown>;

/** The schema of a query parameter of an operation, resolved through its `$ref`s in the bundled spec. */
function parameterSchemaPointer(path: string, method: string, name: string): string | undefined {
  const paths = (spec as unknown as { paths: Record<string, Record<string, { parameters?: Json[] }>> }).paths;
  const parameters = paths[path]?.[method]?.parameters ?? [];
  for (const [index, raw] of parameters.entries()) {
    const ref = typeof raw.$ref === "string" ? raw.$ref.slice(1) : undefined;
    const parameter = ref
      ? (ref
          .split("/")
          .slice(1)
          .reduce<unknown>(
            (node, key) => (node as Json)?.[key.replaceAll("~1", "/").replaceAll("~0", "~")],
            spec,
          ) as Json)
      : raw;
    if (parameter?.name === name && parameter.in === "query") {
      const escaped = path.replaceAll("~", "~0").replaceAll("/", "~1");
      return ref ? `${ref}/schema` : `/paths/${escaped}/${method}/parameters/${index}/schema`;
    }
  }
  return undefined;
}

const parameterValidators = new Map<string, ValidateFunction | undefined>();

/**
 * Whether the contract accepts this value of a query parameter (as its typed value: a list, a number, a string).
 * Values read from a service's data are sent only when it does, so that stored data the contract refuses never fails a
 * correct service.
 */
export function acceptsQueryValue(path: string, method: string, name: string, value: unknown): boolean {
  const key = `${method} ${path} ${name}`;
  if (!parameterValidators.has(key)) {
    const pointer = parameterSchemaPointer(path, method, name);
    parameterValidators.set(key, pointer ? validatorAt(parameterAjv, pointer) : undefined);
  }
  return parameterValidators.get(key)?.(value) ?? true;
}

const parameterAjv = createSpecAjv();
