/**
 * The case-insensitive substring filters (in the schema, 001_schema.sql): `column_search LIKE lower(pattern)`, which
 * answers exactly as `column ILIKE pattern`, plus, for a term with a rare 3-gram, a condition on the rarest grams that
 * a GIN index serves, and for a rare two-character term, on the term itself in the 2-gram index (migration 004).
 * Which grams are chosen changes only the speed, never the rows: the SQL keeps only grams of the term itself.
 */
import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import { hasCitus, shardIndexName } from "./citus-shards.js";
import type { Database } from "./schema.js";
import { likeContains } from "./sql-helpers.js";

export type SearchedColumn = "email" | "phone" | "name";

export const gramIndexes: Record<SearchedColumn, string> = {
  email: "subscribers_email_grams",
  phone: "subscribers_phone_grams",
  name: "subscribers_name_grams",
};

/** The 2-gram indexes (migration 004), for terms of two characters. */
export const bigramIndexes: Record<SearchedColumn, string> = {
  email: "subscribers_email_bigrams",
  phone: "subscribers_phone_bigrams",
  name: "subscribers_name_bigrams",
};

/** Every GIN index of the substring filters. */
export const substringIndexes = [...Object.values(gramIndexes), ...Object.values(bigramIndexes)];

/** Grams asked of the index: each one more narrows the rows to check, and costs one more posting list to read. */
const gramsPerTerm = 3;
/**
 * When even the term's rarest gram is in this share of the rows, the term is common: checking a row the grams name
 * costs about eight times reading an index entry (measured at 1M rows), so walking an index in page order, which
 * stops at a page (or at the count's cap) of dense matches, is the cheaper way.
 */
const commonShare = 0.1;
/**
 * The same, when the count is not read from the rows (a lone term of up to three characters, whose count is kept):
 * then only the page matters, and walking in page order reads about 11 / share index entries to fill a page of 10,
 * against share × rows for the index. At 0.5% of the bench's 930,931 rows: 2,200 against 4,650.
 */
const pageOnlyCommonShare = 0.005;
/**
 * What a substring condition serves, which decides how it asks for rows (never which rows match): `count`, a count that
 * reads the rows (and a page beside it); `page`, a page alone, the count being kept; `walk`, a page walked in the
 * order's index, the LIKE alone, when the count found the matches dense (D58).
 */
export type ConditionUse = "count" | "page" | "walk";
/** How long the gram statistics are used before they are read again (ANALYZE refreshes them in the database). */
const statisticsTtlMs = 10 * 60_000;

/** The shares from which a term counts as common: one for both uses, or one for a count and one for a page alone. */
export type SubstringShares = number | { count: number; page: number };

/** Per gram index: its most common grams with their share of rows; a gram not listed is rarer than any listed. */
type GramFrequencies = Map<string, Map<string, number>>;
/** The gram indexes' statistics: each one's most common grams, and how many rows it indexes (of every environment). */
interface GramStatistics {
  shares: GramFrequencies;
  rows: Map<string, number>;
}

/** A 3-gram's share of the rows of `column`'s gram index, by the statistics (0 for a gram they do not list). */
function shareIn(statistics: GramStatistics, column: SearchedColumn): (gram: string) => number {
  const shares = statistics.shares.get(gramIndexes[column]);
  return (gram) => shares?.get(gram) ?? 0;
}

/** The 3-grams of a term as JavaScript lowercases it, by position: only a preference, the database has the last word. */
export function termGrams(term: string): { gram: string; at: number }[] {
  const chars = [...term.toLowerCase()];
  const grams: { gram: string; at: number }[] = [];
  for (let at = 0; at + 3 <= chars.length; at++) grams.push({ gram: chars.slice(at, at + 3).join(""), at });
  return grams;
}

/**
 * The `count` rarest grams, preferring grams that do not overlap those already taken: overlapping grams ("add", "ddi")
 * tend to name the same rows, so a rare gram elsewhere in the term narrows the match more than a rarer neighbour.
 * Overlapping ones fill up only when too few others are left.
 */
export function rarestGrams(grams: { gram: string; at: number }[], frequency: (gram: string) => number, count: number) {
  const ranked = [...grams].sort((a, b) => frequency(a.gram) - frequency(b.gram) || a.at - b.at);
  const taken: { gram: string; at: number }[] = [];
  const overlaps = (gram: { at: number }) => taken.some((other) => Math.abs(other.at - gram.at) < 3);
  const isTaken = (gram: { gram: string }) => taken.some((other) => other.gram === gram.gram);
  for (const apart of [true, false]) {
    for (const candidate of ranked) {
      if (taken.length === count) break;
      if (!isTaken(candidate) && !(apart && overlaps(candidate))) taken.push(candidate);
    }
  }
  return taken.map((gram) => gram.gram);
}

/** Reads the gram indexes' statistics (pg_stats) now and then, and builds the filter conditions. */
export class SubstringFilter {
  private readonly db: Kysely<Database>;
  private statistics: Promise<GramStatistics> | undefined;
  private readAt = 0;
  private readonly commonShare: number;

  private readonly pageOnlyCommonShare: number;

  /**
   * `common` (a share of the rows; tests set it to 0 or 1 to force one way) overrides both shares; as `{ count, page }`,
   * each (tests force the count through the grams and the page to count first, D58, with `{ count: Infinity, page: 0 }`).
   */
  constructor(db: Kysely<Database>, common?: SubstringShares) {
    this.db = db;
    this.commonShare = (typeof common === "number" ? common : common?.count) ?? commonShare;
    this.pageOnlyCommonShare = (typeof common === "number" ? common : common?.page) ?? pageOnlyCommonShare;
  }

  /**
   * The grams to ask the index for, rarest first; undefined when the term has no gram or is common (then the filter
   * is the LIKE alone). Without statistics (a table never analyzed), the term's first grams that do not overlap.
   */
  async chooseGrams(column: SearchedColumn, term: string, common = this.commonShare): Promise<string[] | undefined> {
    const grams = termGrams(term);
    if (grams.length === 0) return undefined;
    const frequency = shareIn(await this.read(), column);
    const rarest = rarestGrams(grams, frequency, gramsPerTerm);
    return frequency(rarest[0] as string) >= common ? undefined : rarest;
  }

  /**
   * Whether a term's matches may be dense enough for a page to fill sooner from the order's index than from the
   * grams: its rarest gram is too common for a page alone to read it (`page`) but not for a count (`count`), and the
   * index holds enough rows for a walk that passes `walkCost` / share rows to read fewer than the share of them the
   * grams would. Its rarest gram's share only bounds the term's; the count tells (D58).
   */
  async mayBeDense(column: SearchedColumn, term: string, walkCost: number): Promise<boolean> {
    const grams = termGrams(term);
    if (grams.length === 0) return false;
    const statistics = await this.read();
    const frequency = shareIn(statistics, column);
    const rarest = frequency(rarestGrams(grams, frequency, 1)[0] as string);
    const rows = statistics.rows.get(gramIndexes[column]) ?? 0;
    return rarest >= this.pageOnlyCommonShare && rarest < this.commonShare && rarest * rarest * rows > walkCost;
  }

  /** Whether a two-character term is rare enough to be read through the 2-gram index. */
  async bigramIsRare(column: SearchedColumn, term: string, common = this.commonShare): Promise<boolean> {
    const chars = [...term.toLowerCase()];
    if (chars.length !== 2) return false;
    const frequency = (await this.read()).shares.get(bigramIndexes[column])?.get(chars.join("")) ?? 0;
    return frequency < common;
  }

  /**
   * The condition on one searched column, for the subscribers table under `table` (its name or alias). Never in a
   * prepared statement: the best plan depends on how many rows the term matches. `use`: what the condition serves.
   */
  async condition(
    table: string,
    column: SearchedColumn,
    term: string,
    use: ConditionUse = "count",
  ): Promise<Expression<SqlBool>> {
    return (await this.indexedCondition(table, column, term, use)).expression;
  }

  /**
   * `condition`, and whether it asks a gram index for the term's rows (`indexed`): a statement it filters then reads
   * every match, in no order; the LIKE alone (a common term, or a walk) reads rows in the order's index and may stop at
   * a page.
   */
  async indexedCondition(
    table: string,
    column: SearchedColumn,
    term: string,
    use: ConditionUse = "count",
  ): Promise<{ expression: Expression<SqlBool>; indexed: boolean }> {
    const searched = sql.ref(`${table}.${column}_search`);
    const like = sql<SqlBool>`${searched} LIKE lower(${likeContains(term)})`;
    if (use === "walk") return { expression: like, indexed: false };
    const common = use === "page" ? this.pageOnlyCommonShare : this.commonShare;
    if (await this.bigramIsRare(column, term, common)) {
      // The term is its own 2-gram. Should the database's lower() make it longer than JavaScript's did, the condition
      // asks for no gram, which every row passes: slower, never wrong.
      const bigram = sql`CASE WHEN char_length(lower(${term})) = 2 THEN ARRAY[lower(${term})] ELSE '{}'::text[] END`;
      return { expression: sql<SqlBool>`substring_bigrams(${searched}) @> ${bigram} AND ${like}`, indexed: true };
    }
    const grams = await this.chooseGrams(column, term, common);
    if (!grams) return { expression: like, indexed: false };
    return {
      expression: sql<SqlBool>`substring_grams(${searched}) @> substring_grams_among(lower(${term}), ${grams}::text[]) AND ${like}`,
      indexed: true,
    };
  }

  private read(): Promise<GramStatistics> {
    if (!this.statistics || Date.now() - this.readAt > statisticsTtlMs) {
      this.readAt = Date.now();
      this.statistics = this.load().catch(() => ({ shares: new Map(), rows: new Map() }));
    }
    return this.statistics;
  }

  /** The gram statistics in use (read now and then): per gram index, its most common grams with their shares. */
  async gramFrequencies(): Promise<GramFrequencies> {
    return (await this.read()).shares;
  }

  private async load(): Promise<GramStatistics> {
    const { rows } = await sql<{ index: string; grams: string[]; frequencies: number[]; rows: number }>`
      SELECT s.tablename AS index, s.most_common_elems::text::text[] AS grams, s.most_common_elem_freqs AS frequencies,
        c.reltuples * (1 - s.null_frac) AS rows
      FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename
      WHERE s.tablename IN (${sql.join(substringIndexes)}) AND s.most_common_elems IS NOT NULL`.execute(this.db);
    // On a Citus coordinator (whose migrations distribute the tables) the statistics are the shards', on the workers.
    if (rows.length === 0 && (await hasCitus(this.db))) return this.loadFromShards();
    const out: GramStatistics = { shares: new Map(), rows: new Map() };
    for (const row of rows) {
      out.shares.set(row.index, gramShares(row.grams, row.frequencies));
      out.rows.set(row.index, Math.max(Number(row.rows), 0));
    }
    return out;
  }

  /**
   * On Citus: every shard's gram statistics (a shard's index is named after the index and the shard's number), each
   * gram's share (of the rows with a value) averaged over the shards weighted by their rows with a value, so that a
   * term is common or rare as it is over the whole table, as on a single node. A gram a shard does not list counts as
   * none of that shard's rows.
   */
  private async loadFromShards(): Promise<GramStatistics> {
    const indexes = `ARRAY[${substringIndexes.map((index) => `'${index}'`).join(", ")}]`;
    const command = `SELECT coalesce(json_agg(json_build_object('index', i.name, 'rows', c.reltuples * (1 - s.null_frac),
        'grams', s.most_common_elems::text::text[], 'frequencies', s.most_common_elem_freqs)), '[]')
      FROM unnest(${indexes}) AS i(name)
      JOIN pg_stats s ON s.tablename = ${shardIndexName("i.name")}
      JOIN pg_class c ON c.relname = s.tablename
      WHERE s.most_common_elems IS NOT NULL`;
    const { rows } = await sql<{ success: boolean; result: string }>`
      SELECT success, result FROM run_command_on_shards('subscribers', ${command})`.execute(this.db);
    const totals = new Map<string, { rows: number; grams: Map<string, number> }>();
    for (const shard of rows) {
      if (!shard.success) continue;
      const stats = JSON.parse(shard.result) as {
        index: string;
        rows: number;
        grams: string[];
        frequencies: number[];
      }[];
      for (const stat of stats) {
        const total = totals.get(stat.index) ?? { rows: 0, grams: new Map<string, number>() };
        total.rows += Math.max(stat.rows, 0);
        for (const [gram, share] of gramShares(stat.grams, stat.frequencies)) {
          total.grams.set(gram, (total.grams.get(gram) ?? 0) + share * Math.max(stat.rows, 0));
        }
        totals.set(stat.index, total);
      }
    }
    const out: GramStatistics = { shares: new Map(), rows: new Map() };
    for (const [index, total] of totals) {
      if (total.rows <= 0) continue;
      out.shares.set(index, new Map([...total.grams].map(([gram, rows]) => [gram, rows / total.rows])));
      out.rows.set(index, total.rows);
    }
    return out;
  }
}

/** A statistics row's grams with their shares: most_common_elem_freqs ends with the minimum, the maximum and the null
 * share, three more than the grams. */
function gramShares(grams: string[], frequencies: number[]): Map<string, number> {
  const shares = new Map<string, number>();
  grams.forEach((gram, i) => {
    shares.set(gram, Number(frequencies[i]));
  });
  return shares;
}
