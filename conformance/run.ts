import { operationTable } from "@novu-query/contract/operations";
import { ConformanceContext, type ConformanceTarget, type Level } from "./context.js";
import { rules } from "./rules.js";

export interface RuleResult {
  id: string;
  text: string;
  passed: boolean;
  /** Why the rule failed. */
  reason?: string;
  /** An operation of the contract that no rule checks yet: reported, neither passed nor failed. */
  todo?: true;
  /** A rule not run, and why (an isolation rule without a second key): neither passed nor failed. */
  skipped?: string;
  /** What the rule wants said beside its result (the window of data it checked, say). */
  notes?: string[];
}

export interface ConformanceReport {
  results: RuleResult[];
  passed: number;
  failed: number;
  /** The `todo` entries: operations no rule has seen succeed. */
  todo: number;
  /** Rules not run (`skipped` entries). */
  skipped: number;
  /** Requests sent, and the time spent waiting out 429s. */
  traffic: { requests: number; rateLimitedMs: number };
  /** How long the run took. */
  durationMs: number;
}

/**
 * Runs the rules of a level against an implementation, one after another (some change state and put it back).
 * `shape` runs the rules a static mock can pass; `behaviour` (the default) runs all of them.
 */
export async function runConformance(
  target: ConformanceTarget & {
    level?: Level;
    /** Only these rules: ids (`list.filter.channels`) or prefixes ending in a dot (`search.filter.`). */
    only?: string[] | undefined;
  },
  onResult: (result: RuleResult) => void = () => {},
): Promise<ConformanceReport> {
  const level = target.level ?? "behaviour";
  const context = new ConformanceContext(target);
  const results: RuleResult[] = [];
  const started = Date.now();
  const chosen = (id: string) =>
    !target.only || target.only.some((name) => (name.endsWith(".") ? id.startsWith(name) : id === name));
  const selected = rules.filter((rule) => (level === "behaviour" || rule.level === "shape") && chosen(rule.id));
  for (const rule of selected) {
    let result: RuleResult;
    context.notes.length = 0;
    const skipped =
      rule.needsOtherKey && !target.otherApiKey
        ? "needs a key of a second environment (otherApiKey, --other-api-key)"
        : rule.writes && target.readOnly
          ? "a read-only run (--read-only) sends no PATCH"
          : undefined;
    if (skipped) {
      result = { id: rule.id, text: rule.text, passed: false, skipped };
    } else {
      try {
        await rule.run(context);
        result = { id: rule.id, text: rule.text, passed: true };
      } catch (error) {
        result = { id: rule.id, text: rule.text, passed: false, reason: (error as Error).message };
      }
    }
    if (context.notes.length > 0) result.notes = [...context.notes];
    results.push(result);
    onResult(result);
  }
  // Only a full run can say which operations no rule covers (the shape level leaves the behaviour rules out).
  if (level === "behaviour" && !target.only) {
    for (const id of context.coverage.missing()) {
      const { method, path } = operationTable[id];
      const result: RuleResult = {
        id: `todo.${id}`,
        text: `No rule checks ${method.toUpperCase()} ${path} yet (no rule saw it answer with success)`,
        passed: false,
        todo: true,
      };
      results.push(result);
      onResult(result);
    }
  }
  const passed = results.filter((result) => result.passed).length;
  const todo = results.filter((result) => result.todo).length;
  const skipped = results.filter((result) => result.skipped).length;
  return {
    results,
    passed,
    failed: results.length - passed - todo - skipped,
    todo,
    skipped,
    traffic: { ...context.traffic },
    durationMs: Date.now() - started,
  };
}
