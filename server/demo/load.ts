import type { Store } from "../store/store.js";
import { type DemoEnvironment, type DemoOptions, generateDemoData } from "./generate.js";

const batchSize = 500;

function batches<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += batchSize) out.push(rows.slice(i, i + batchSize));
  return out;
}

/** Writes the demo data (environments, their fixed keys, workflows, subscribers, notifications) in one transaction. */
export async function loadDemoData(store: Store, options: DemoOptions): Promise<DemoEnvironment[]> {
  const environments = generateDemoData(options);
  await store.transaction(async (tx) => {
    for (const environment of environments) {
      const { environmentId, organizationId } = environment;
      await tx.access.ensureEnvironment(environment.name, { environmentId, organizationId });
      await tx.access.createApiKey(environmentId, environment.apiKey);
      await tx.db
        .insertInto("workflows")
        .values(
          environment.workflows.map((workflow) => ({
            id: workflow.id,
            environment_id: workflow.environment_id,
            name: workflow.name,
            origin: workflow.origin,
            triggers: JSON.stringify([
              {
                type: "event",
                identifier: workflow.identifier,
                variables: workflow.variables.map((name) => ({ name })),
                subscriberVariables: [{ name: "firstName" }, { name: "email" }],
              },
            ]),
          })),
        )
        .execute();
      for (const rows of batches(environment.subscribers)) {
        await tx.db
          .insertInto("subscribers")
          .values(
            rows.map((row) => ({
              ...row,
              channels: JSON.stringify(row.channels),
              data: row.data && JSON.stringify(row.data),
            })),
          )
          .execute();
      }
      for (const rows of batches(environment.notifications)) {
        await tx.db
          .insertInto("notifications")
          .values(rows.map((row) => ({ ...row, details: JSON.stringify(row.details) })))
          .execute();
      }
    }
  });
  return environments;
}

/** True when the store holds no environment yet (a fresh database). */
export async function isEmpty(store: Store): Promise<boolean> {
  const row = await store.db.selectFrom("environments").select("id").limit(1).executeTakeFirst();
  return row === undefined;
}
