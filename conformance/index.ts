/**
 * The conformance suite as a library: run it from your own test runner, or pick rules. The command is
 * `novu-query-conformance`.
 */
export {
  ConformanceContext,
  type ConformanceTarget,
  check,
  checkEqual,
  type Level,
  type Rule,
  RuleFailure,
} from "./context.js";
export { rules } from "./rules.js";
export { type ConformanceReport, type RuleResult, runConformance } from "./run.js";
export { createSpecAjv, validatorAt } from "./spec-validator.js";
