/**
 * API keys. Uses the same DATABASE_URL / DATA_DIR as the server.
 *   keys create --environment <name> [--retention-days <days>]   a new key, printed once; only its hash is stored
 *   keys revoke-demo                                             removes the public demo keys
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { publicDemoKeys } from "../demo/options.js";
import { openStore } from "../store/store.js";

export const keysUsage = `Usage: novu-query-server keys create --environment <name> [--retention-days <days>]
       novu-query-server keys revoke-demo      remove the public demo keys (before a production start)`;

export async function runKeysCommand(argv: string[], env: Record<string, string | undefined>): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { environment: { type: "string" }, "retention-days": { type: "string" } },
  });
  const revokeDemo = positionals[0] === "revoke-demo" && positionals.length === 1;
  if (!revokeDemo && (positionals[0] !== "create" || !values.environment)) throw new Error(keysUsage);
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
    const { access } = opened.store;
    if (revokeDemo) {
      const revoked: string[] = [];
      for (const { name, key } of publicDemoKeys()) if (await access.revokeApiKey(key)) revoked.push(name);
      return revoked.length > 0
        ? `Removed the public demo keys of ${revoked.join(" and ")}.`
        : "No public demo key was there.";
    }
    const environment = await access.ensureEnvironment(values.environment as string);
    for (const { name, key } of publicDemoKeys()) {
      const holder = await access.environmentForKey(key);
      if (holder?.environmentId === environment.environmentId && !config.allowDemoKeys) {
        throw new Error(
          `The environment ${environment.name} holds the demo data and the public demo key of ${name}, which anyone ` +
            "can derive: a key of yours there would share it. Run `novu-query-server keys revoke-demo` first, or " +
            "name another environment (ALLOW_DEMO_KEYS=true to add a key beside it anyway).",
        );
      }
    }
    if (retention !== undefined) await access.setRetentionDays(environment.environmentId, Number(retention));
    return await access.createApiKey(environment.environmentId);
  } finally {
    await opened.close();
  }
}
