/**
 * Rewrites the notifications written before migration 012 (D59), which have their `details` and no kept answer, with
 * their answer kept as text, off the request path: until then the list builds theirs the typed way from their
 * columns, to the same bytes. A database made after migration 012 never has such a row, unless a server of an older
 * version writes one during a rolling upgrade; the next pass finds it.
 */
import { type Kysely, sql } from "kysely";
import { storedAnswer } from "./notification-answer.js";
import type { Database } from "./schema.js";

/**
 * Rewrites up to `batchSize` notifications that have no kept answer, one statement per environment; returns how many
 * it found (0: none is left). Found through the partial index of such rows (migration 012), which is empty once they
 * are all rewritten. Another instance rewriting the same rows at the same time writes the same text.
 */
export async function fillAnswers(db: Kysely<Database>, batchSize: number): Promise<number> {
  const rows = await db.selectFrom("notifications").selectAll().where("answer", "is", null).limit(batchSize).execute();
  const byEnvironment = new Map<string, { ids: string[]; answers: string[] }>();
  for (const row of rows) {
    const group = byEnvironment.get(row.environment_id) ?? { ids: [], answers: [] };
    group.ids.push(row.id);
    group.answers.push(storedAnswer(row));
    byEnvironment.set(row.environment_id, group);
  }
  for (const [environmentId, { ids, answers }] of byEnvironment) {
    // By environment and id: ids are unique (ObjectIds), and the environment keeps the statement on its shard (Citus).
    await sql`UPDATE notifications n SET answer = v.answer, details = NULL
      FROM unnest(${ids}::text[], ${answers}::text[]) AS v(id, answer)
      WHERE n.environment_id = ${environmentId} AND n.id = v.id AND n.answer IS NULL`.execute(db);
  }
  return rows.length;
}

/**
 * Rewrites batch after batch, `pauseMs` apart so that requests keep their share of the database, until none is left;
 * then looks again every `idleMs`. A failure is reported and the loop goes on at the next look.
 */
export function fillAnswersInBackground(
  db: Kysely<Database>,
  options: { batchSize: number; pauseMs: number; idleMs: number },
  report: { filled(count: number): void; failed(error: unknown): void },
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let filled = 0;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = fillAnswers(db, options.batchSize).then(
        (found) => {
          filled += found;
          if (found === 0 && filled > 0) {
            report.filled(filled);
            filled = 0;
          }
          schedule(found === 0 ? options.idleMs : options.pauseMs);
        },
        (error) => {
          if (stopped) return;
          report.failed(error);
          schedule(options.idleMs);
        },
      );
    }, delayMs);
    timer.unref();
  };
  schedule(options.pauseMs);
  return {
    /** Stops the loop; resolves once a batch already under way has ended, so none runs after it. */
    stop() {
      stopped = true;
      clearTimeout(timer);
      return running;
    },
  };
}
