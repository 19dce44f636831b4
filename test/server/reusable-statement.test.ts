/**
 * Statements built once per shape and run again with each call's values (server/store/reusable-statement.ts, D69):
 * the rows are those of the statement built for the call, the builder runs only for a shape it has not seen, and a
 * builder whose values decide its text is refused on its first call, naming the statement.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReusableStatement } from "../../server/store/reusable-statement.js";
import type { Database } from "../../server/store/schema.js";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores } from "../support/databases.js";

describe.each(drivers)("a statement built once per shape (%s)", (driver) => {
  const stores = emptyStores(driver);
  let store: Store;
  let db: Kysely<Database>;

  beforeAll(async () => {
    store = await stores.fresh();
    db = store.db;
    await db.insertInto("organizations").values({ id: "org", name: "Organization" }).execute();
    await db
      .insertInto("environments")
      .values(["Alpha", "Beta", "Gamma", "Delta"].map((name, i) => ({ id: `e${i}`, name, organization_id: "org" })))
      .execute();
  }, 60_000);
  afterAll(() => stores.closeAll());

  /** Environments named after `after`, in order, `limit` at most: the limit decides the text, the name is a value. */
  function environmentsAfter() {
    let builds = 0;
    const statement = new ReusableStatement(
      "environments after a name",
      (limit: number) => String(limit),
      (on: Kysely<Database>, limit, { after }: { after: string }) => {
        builds++;
        return on
          .selectFrom("environments")
          .select("name")
          .where("name", ">", after)
          .orderBy("name")
          .limit(sql.lit(limit));
      },
      2,
    );
    return { statement, builds: () => builds };
  }

  it("answers each call with its own values, building a shape only the first time it is seen", async () => {
    const { statement, builds } = environmentsAfter();
    const names = async (limit: number, after: string) =>
      (await statement.execute(db, limit, { after })).map((row) => row.name);
    expect(await names(2, "A")).toEqual(["Alpha", "Beta"]);
    // The first call of a shape builds it twice: once with placeholders, once with its values, to check that they agree.
    expect(builds()).toBe(2);
    expect(await names(2, "Beta")).toEqual(["Delta", "Gamma"]);
    expect(await names(2, "Delta")).toEqual(["Gamma"]);
    expect(builds()).toBe(2);
    expect(await names(3, "")).toEqual(["Alpha", "Beta", "Delta"]);
    expect(builds()).toBe(4);
    // Past its two shapes, a new shape is built for every call, and still answered.
    expect(await names(1, "Beta")).toEqual(["Delta"]);
    expect(await names(1, "Alpha")).toEqual(["Beta"]);
    expect(builds()).toBe(8);
    expect(await names(2, "Gamma")).toEqual([]);
    expect(builds()).toBe(8);
  });

  it("refuses a builder whose values decide its text, naming the statement", async () => {
    const decidedByValue = new ReusableStatement(
      "environments by an optional name",
      () => "",
      (on: Kysely<Database>, _shape, { name }: { name: string | undefined }) =>
        on
          .selectFrom("environments")
          .select("name")
          .$if(name !== undefined, (statement) => statement.where("name", "=", name as string)),
    );
    await expect(decidedByValue.execute(db, undefined, { name: undefined })).rejects.toThrow(
      /the environments by an optional name statement is not reusable: its values decide its text/,
    );
  });

  it("refuses a builder whose parameters are made from its values rather than bound as they are", async () => {
    const madeFromValue = new ReusableStatement(
      "environments by prefix",
      () => "",
      (on: Kysely<Database>, _shape, { prefix }: { prefix: string }) =>
        on.selectFrom("environments").select("name").where("name", "like", `${prefix}%`),
    );
    await expect(madeFromValue.execute(db, undefined, { prefix: "A" })).rejects.toThrow(
      /the environments by prefix statement is not reusable: its values decide its text or its parameters/,
    );
  });
});
