/**
 * What a running server does besides answering: now and every ten minutes, delete expired idempotency records, create
 * notification partitions for the months ahead and (with PURGE_AFTER_DAYS) drop the months past retention; on
 * PostgreSQL, merge PATCHes' grams into the gram indexes a few times a second rather than inside a request
 * (server/store/gram-index-merges.ts); and rewrite the notifications written before migration 012 with their answer kept
 * as text, a batch at a time (server/store/answer-fill.ts).
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { fillAnswersInBackground } from "../store/answer-fill.js";
import { mergeGramIndexesEvery } from "../store/gram-index-merges.js";
import type { OpenedStore } from "../store/store.js";

const everyMs = 600_000;

export interface Housekeeping {
  /** Stops the timers; resolves when a gram merge or an answers batch under way has ended. */
  stop(): Promise<void>;
}

export async function startHousekeeping(opened: OpenedStore, config: Config, logger: Logger): Promise<Housekeeping> {
  const { store } = opened;
  const tidy = async () => {
    const deleted = await store.idempotency.deleteExpired();
    if (deleted > 0) logger.info({ deleted }, "deleted expired idempotency records");
    const now = new Date();
    const created = await store.partitions.ensureAround(now);
    if (created > 0) logger.info({ created }, "created notification partitions");
    if (config.purgeAfterDays !== undefined) {
      const dropped = await store.partitions.dropBefore(new Date(now.getTime() - config.purgeAfterDays * 86_400_000));
      if (dropped.length > 0) logger.info({ dropped }, "dropped notification partitions past PURGE_AFTER_DAYS");
    }
  };
  await tidy();
  const timer = setInterval(() => tidy().catch((err) => logger.error({ err }, "housekeeping failed")), everyMs);
  timer.unref();
  const gramMerges =
    opened.driver === "postgres"
      ? mergeGramIndexesEvery(store.db, config.gramMergeIntervalMs, (err) =>
          logger.warn({ err }, "stopped merging the gram indexes' pending entries (GRAM_MERGE_INTERVAL_MS)"),
        )
      : undefined;
  const answers = fillAnswersInBackground(
    store.db,
    { batchSize: 200, pauseMs: 100, idleMs: everyMs },
    {
      filled: (count) => logger.info({ count }, "kept the answers of notifications written before migration 012"),
      failed: (err) => logger.warn({ err }, "could not keep the answers of older notifications; trying again later"),
    },
  );
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([gramMerges?.stop(), answers.stop()]);
    },
  };
}
