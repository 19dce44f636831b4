/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements one run of a shape sends, summarised as the indexes each statement
 * uses, any sequential scan, its execution time and the buffers it touched. Runs inside a rolled-back transaction,
 * so explaining a PATCH changes nothing.
 */
import type { CompiledQuery, Kysely, LogEvent } from "kysely";
import type { Database } from "../server/store/schema.js";

export interface StatementPlan {
  /** The first words of the statement, for orientation. */
  statement: string;
  indexes: string[];
  seqScans: string[];
  executionMs: number;
  buffers: number;
  rows: number;
}

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

/** Collects the statements Kysely runs while `capturing` is on: pass `log` to the connection. */
export class QueryCapture {
  private captured: CompiledQuery[] | undefined;
  readonly log = (event: LogEvent) => {
    if (event.level === "query") this.captured?.push(event.query);
  };

  async during(work: () => Promise<unknown>): Promise<CompiledQuery[]> {
    this.captured = [];
    try {
      await work();
      return this.captured;
    } finally {
      this.captured = undefined;
    }
  }
}

/** Visits the nodes that ran: a branch PostgreSQL never executed (a CASE's other arm, a pruned partition) reads nothing. */
function walk(node: PlanNode, visit: (node: PlanNode) => void) {
  if (node["Actual Loops"] === 0) return;
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

export async function explain(db: Kysely<Database>, queries: readonly CompiledQuery[]): Promise<StatementPlan[]> {
  const plans: StatementPlan[] = [];
  for (const query of queries) {
    if (!/^\s*(select|update|insert|delete|with)\b/i.test(query.sql)) continue;
    await db
      .transaction()
      .execute(async (tx) => {
        const result = await tx.executeQuery<{ "QUERY PLAN": unknown }>({
          ...query,
          sql: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query.sql}`,
        });
        const raw = result.rows[0]?.["QUERY PLAN"];
        const document = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
          Plan: PlanNode;
          "Execution Time": number;
        }[];
        const top = document[0];
        if (!top) return;
        const indexes = new Set<string>();
        const seqScans = new Set<string>();
        walk(top.Plan, (node) => {
          if (node["Index Name"]) indexes.add(node["Index Name"]);
          if (node["Node Type"] === "Seq Scan") seqScans.add(node["Relation Name"] ?? "?");
        });
        plans.push({
          statement: query.sql.replace(/\s+/g, " ").trim().slice(0, 60),
          indexes: [...indexes],
          seqScans: [...seqScans],
          executionMs: Math.round(top["Execution Time"] * 1000) / 1000,
          buffers: (top.Plan["Shared Hit Blocks"] ?? 0) + (top.Plan["Shared Read Blocks"] ?? 0),
          rows: top.Plan["Actual Rows"] ?? 0,
        });
        // Roll back whatever an explained UPDATE did.
        throw rollback;
      })
      .catch((error) => {
        if (error !== rollback) throw error;
      });
  }
  return plans;
}

const rollback = Symbol("rollback");
