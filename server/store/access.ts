import { randomBytes } from "node:crypto";
import { hashApiKey } from "@novu-query/express";
import type { Kysely, Selectable } from "kysely";
import { newObjectId } from "./object-id.js";
import { prepared } from "./prepared-statements.js";
import type { Database, EnvironmentsTable } from "./schema.js";

/** The environment an API key belongs to: every query of the request is scoped to it. */
export interface Environment {
  environmentId: string;
  organizationId: string;
  name: string;
  retentionDays: number | null;
}

/** A new API key: 32 random hex characters. */
export function generateApiKey(): string {
  return randomBytes(16).toString("hex");
}

type EnvironmentRow = Pick<Selectable<EnvironmentsTable>, "id" | "organization_id" | "name" | "retention_days">;

function toEnvironment(row: EnvironmentRow): Environment {
  return {
    environmentId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    retentionDays: row.retention_days,
  };
}

export class AccessStore {
  private readonly db: Kysely<Database>;
  private readonly reads: Kysely<Database>;

  /** `reads` (a read replica when there is one) answers key lookups; a key it does not know yet is asked of `db`. */
  constructor(db: Kysely<Database>, reads: Kysely<Database> = db) {
    this.db = db;
    this.reads = reads;
  }

  /** Looks a key up by its SHA-256 hash (the key itself is never stored). */
  environmentForKey(key: string): Promise<Environment | undefined> {
    return this.environmentForKeyHash(hashApiKey(key));
  }

  async environmentForKeyHash(keyHash: string): Promise<Environment | undefined> {
    const found = await this.lookUpKeyHash(this.reads, keyHash);
    // A key created a moment ago may not have reached the replica yet.
    return found ?? (this.reads === this.db ? undefined : this.lookUpKeyHash(this.db, keyHash));
  }

  private async lookUpKeyHash(db: Kysely<Database>, keyHash: string): Promise<Environment | undefined> {
    const row = await db
      .selectFrom("api_keys")
      .innerJoin("environments", "environments.id", "api_keys.environment_id")
      .select(["environments.id", "environments.organization_id", "environments.name", "environments.retention_days"])
      .where("api_keys.key_hash", "=", keyHash)
      .modifyEnd(prepared)
      .executeTakeFirst();
    return row && toEnvironment(row);
  }

  async findEnvironment(name: string): Promise<Environment | undefined> {
    const row = await this.db.selectFrom("environments").selectAll().where("name", "=", name).executeTakeFirst();
    return row && toEnvironment(row);
  }

  /** The environment with this name, created (in its own organization) when there is none. */
  async ensureEnvironment(
    name: string,
    ids: { environmentId?: string; organizationId?: string } = {},
  ): Promise<Environment> {
    const existing = await this.findEnvironment(name);
    if (existing) return existing;
    const organizationId = ids.organizationId ?? newObjectId();
    const environmentId = ids.environmentId ?? newObjectId();
    await this.db
      .insertInto("organizations")
      .values({ id: organizationId, name: `${name} organization` })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
    await this.db
      .insertInto("environments")
      .values({ id: environmentId, organization_id: organizationId, name, retention_days: null })
      .execute();
    return { environmentId, organizationId, name, retentionDays: null };
  }

  /** Stores the hash of a key for the environment. Give no key to have one generated; either way it is returned. */
  async createApiKey(environmentId: string, key: string = generateApiKey()): Promise<string> {
    await this.db
      .insertInto("api_keys")
      .values({ key_hash: hashApiKey(key), environment_id: environmentId })
      .onConflict((oc) => oc.column("key_hash").doNothing())
      .execute();
    return key;
  }

  /** Removes a key; true when there was one. */
  async revokeApiKey(key: string): Promise<boolean> {
    const result = await this.db.deleteFrom("api_keys").where("key_hash", "=", hashApiKey(key)).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async setRetentionDays(environmentId: string, days: number | null): Promise<void> {
    await this.db.updateTable("environments").set({ retention_days: days }).where("id", "=", environmentId).execute();
  }
}
