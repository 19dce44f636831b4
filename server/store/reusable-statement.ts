/**
 * A statement that Kysely builds and compiles once per shape, then runs with each call's values (D69). Building a
 * statement with Kysely's builder and compiling it to SQL cost the server's one thread about 100-150 µs for the list's
 * page (its joins and aliases), more than PostgreSQL spends running it on its generic plan (measured: a page through
 * the store 382-430 µs of Node CPU, the same compiled text sent again 208-234 µs). So the hot statements, whose text
 * is the same from call to call, are built once per shape (whatever decides the text: a page's LIMIT and OFFSET, an
 * order) and sent again with the new values bound.
 *
 * The rule a builder keeps: its `values` are bound as values and decide nothing of the text; whatever decides the text
 * is in its `shape`. The first build of a shape checks it: the statement is built once with placeholders and once with
 * the call's own values, and the two must give the same text and the same parameters, or the call throws, naming the
 * statement. Past `maxShapes` shapes, a statement is built anew each time, as any other.
 */
import type { CompiledQuery, Kysely, QueryExecutorProvider } from "kysely";

/** Stands for one of the call's values while a shape is built: replaced by that value in the parameters of each call. */
class Placeholder {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** A statement as Kysely's builders and `sql` make it: compiled against the database it runs on. */
interface Buildable<Row> {
  compile(on: QueryExecutorProvider): CompiledQuery<Row>;
}

/** Most shapes kept per statement: a list's first pages are a few hundred (each limit, each offset up to the bound). */
const defaultMaxShapes = 1000;

export class ReusableStatement<DB, Shape, Values extends Record<string, unknown>, Row> {
  private readonly compiled = new Map<string, CompiledQuery<Row>>();
  private readonly name: string;
  private readonly shapeKey: (shape: Shape) => string;
  private readonly build: (db: Kysely<DB>, shape: Shape, values: Values) => Buildable<Row>;
  private readonly maxShapes: number;

  /**
   * `name` names the statement in errors; `shapeKey` gives the text of a shape (equal shapes, equal keys); `build` makes
   * the statement on `db` for a shape and values.
   */
  constructor(
    name: string,
    shapeKey: (shape: Shape) => string,
    build: (db: Kysely<DB>, shape: Shape, values: Values) => Buildable<Row>,
    maxShapes = defaultMaxShapes,
  ) {
    this.name = name;
    this.shapeKey = shapeKey;
    this.build = build;
    this.maxShapes = maxShapes;
  }

  /** Runs the statement of this shape with these values on `db` (a pool, a transaction), and returns its rows. */
  async execute(db: Kysely<DB>, shape: Shape, values: Values): Promise<Row[]> {
    const key = this.shapeKey(shape);
    const compiled = this.compiled.get(key) ?? this.firstOf(db, key, shape, values);
    const parameters = compiled.parameters.map((parameter) =>
      parameter instanceof Placeholder ? values[parameter.name] : parameter,
    );
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  }

  /** The shape built with placeholders, checked against the same shape built with the call's values, and kept. */
  private firstOf(db: Kysely<DB>, key: string, shape: Shape, values: Values): CompiledQuery<Row> {
    const placeholders = Object.fromEntries(Object.keys(values).map((name) => [name, new Placeholder(name)]));
    const compiled = this.build(db, shape, placeholders as unknown as Values).compile(db);
    const direct = this.build(db, shape, values).compile(db);
    const same =
      compiled.sql === direct.sql &&
      compiled.parameters.length === direct.parameters.length &&
      compiled.parameters.every((parameter, i) =>
        Object.is(parameter instanceof Placeholder ? values[parameter.name] : parameter, direct.parameters[i]),
      );
    if (!same) {
      throw new Error(
        `the ${this.name} statement is not reusable: its values decide its text or its parameters (shape ${key}); what decides them belongs in its shape`,
      );
    }
    if (this.compiled.size < this.maxShapes) this.compiled.set(key, compiled);
    return compiled;
  }
}
