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
