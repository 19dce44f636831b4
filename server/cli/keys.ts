/**
 * Creates API keys. Usage: novu-query-server keys create --environment <name> [--retention-days <days>]
 * Uses the same DATABASE_URL / DATA_DIR as the server; the key is printed once and only its hash is stored.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { openStore } from "../store/store.js";

export const keysUsage = "Usage: novu-query-server keys create --environment <name> [--retention-days <days>]";

export async function runKeysCommand(argv: string[], env: Record<string, string | undefined>): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { environment: { type: "string" }, "retention-days": { type: "string" } },
  });
  if (positionals[0] !== "create" || !values.environment) throw new Error(keysUsage);
  const retention = values["retention-days"];
  if (retention !== undefined && !/^[1-9]\d*$/.test(retention))
    throw new Error("--retention-days must be a whole number of days");
  const config = loadConfig(env);
  if (!config.databaseUrl && !config.dataDir) {
    throw new Error(
      "Set DATABASE_URL or DATA_DIR: a key created in an in-memory database is gone when this command ends.",
    );
  }
  const opened = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    totalCountCap: config.totalCountCap,
  });
  try {
    const environment = await opened.store.access.ensureEnvironment(values.environment);
    if (retention !== undefined)
      await opened.store.access.setRetentionDays(environment.environmentId, Number(retention));
    return await opened.store.access.createApiKey(environment.environmentId);
  } finally {
    await opened.close();
  }
}
