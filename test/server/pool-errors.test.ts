import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStore } from "../../server/store/store.js";
import { createPostgresDatabase, drivers } from "../support/databases.js";

describe.runIf(drivers.includes("postgres"))("the PostgreSQL pool", () => {
  it("survives the server ending its idle connections, and reconnects", async () => {
    const database = await createPostgresDatabase();
    const errors: Error[] = [];
    const opened = await openStore({
      databaseUrl: database.url,
      totalCountCap: 10,
      poolSize: 3,
      onConnectionError: (error) => errors.push(error),
    });
    try {
      await opened.store.access.ensureEnvironment("Pool");
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      await admin.end();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors.length).toBeGreaterThan(0);
      expect((await opened.store.access.findEnvironment("Pool"))?.name).toBe("Pool");
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
