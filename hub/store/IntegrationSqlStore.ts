import type {
  GlobalTransformRecord,
  IntegrationStore,
  SecretRecord,
  WebhookRecord,
} from "./IntegrationStore.js";
import { reread, type SqlPort } from "./SqlPort.js";

interface WebhookRow {
  project_uid: string;
  id: string;
  disabled: number | boolean;
  transform: string;
  created: number;
  modified: number;
}

interface SecretRow {
  project_uid: string;
  name: string;
  created: number;
  created_by: string;
  modified: number | null;
  modified_by: string | null;
}

interface TransformRow {
  project_uid: string;
  transform: string;
  enabled: number | boolean;
  modified: number;
}

const webhook = (r: WebhookRow): WebhookRecord => ({
  projectUid: r.project_uid,
  id: r.id,
  disabled: r.disabled === 1 || r.disabled === true,
  transform: r.transform,
  created: Number(r.created),
  modified: Number(r.modified),
});

const secret = (r: SecretRow): SecretRecord => ({
  projectUid: r.project_uid,
  name: r.name,
  created: Number(r.created),
  createdBy: r.created_by,
  modified: r.modified === null ? null : Number(r.modified),
  modifiedBy: r.modified_by,
});

const SECRET_COLUMNS = "project_uid, name, created, created_by, modified, modified_by";

/** The integration tables (migrations of both backends) read and written with shared statements. */
export class IntegrationSqlStore implements IntegrationStore {
  constructor(private readonly sql: SqlPort) {}

  async putWebhook(w: WebhookRecord): Promise<WebhookRecord> {
    await this.sql.run(
      `INSERT INTO webhooks (project_uid, id, disabled, transform, created, modified) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_uid, id) DO UPDATE SET disabled = excluded.disabled,
        transform = excluded.transform, modified = excluded.modified`,
      w.projectUid,
      w.id,
      w.disabled ? 1 : 0,
      w.transform,
      w.created,
      w.modified,
    );
    return (await this.getWebhook(w.projectUid, w.id))!;
  }

  async getWebhook(projectUid: string, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.sql.get<WebhookRow>(
      "SELECT * FROM webhooks WHERE project_uid = ? AND id = ?",
      projectUid,
      id,
    );
    return row && webhook(row);
  }

  async listWebhooks(projectUid: string): Promise<WebhookRecord[]> {
    const rows = await this.sql.all<WebhookRow>(
      "SELECT * FROM webhooks WHERE project_uid = ? ORDER BY id",
      projectUid,
    );
    return rows.map(webhook);
  }

  async deleteWebhook(projectUid: string, id: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM webhooks WHERE project_uid = ? AND id = ?", projectUid, id)) > 0;
  }

  async createSecret(s: SecretRecord, ciphertext: string): Promise<boolean> {
    const changed = await this.sql.run(
      `INSERT INTO project_secrets (project_uid, name, ciphertext, created, created_by, modified, modified_by)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_uid, name) DO NOTHING`,
      s.projectUid,
      s.name,
      ciphertext,
      s.created,
      s.createdBy,
      s.modified,
      s.modifiedBy,
    );
    return changed > 0;
  }

  async updateSecret(
    projectUid: string,
    name: string,
    ciphertext: string,
    modified: number,
    modifiedBy: string,
  ): Promise<SecretRecord | undefined> {
    const changed = await this.sql.run(
      "UPDATE project_secrets SET ciphertext = ?, modified = ?, modified_by = ? WHERE project_uid = ? AND name = ?",
      ciphertext,
      modified,
      modifiedBy,
      projectUid,
      name,
    );
    return changed > 0 ? this.getSecret(projectUid, name) : undefined;
  }

  async getSecret(projectUid: string, name: string): Promise<SecretRecord | undefined> {
    const row = await this.sql.get<SecretRow>(
      `SELECT ${SECRET_COLUMNS} FROM project_secrets WHERE project_uid = ? AND name = ?`,
      projectUid,
      name,
    );
    return row && secret(row);
  }

  async getSecretCiphertext(projectUid: string, name: string): Promise<string | undefined> {
    const row = await this.sql.get<{ ciphertext: string }>(
      "SELECT ciphertext FROM project_secrets WHERE project_uid = ? AND name = ?",
      projectUid,
      name,
    );
    return row?.ciphertext;
  }

  async listSecrets(projectUid: string): Promise<SecretRecord[]> {
    const rows = await this.sql.all<SecretRow>(
      `SELECT ${SECRET_COLUMNS} FROM project_secrets WHERE project_uid = ? ORDER BY name`,
      projectUid,
    );
    return rows.map(secret);
  }

  async deleteSecret(projectUid: string, name: string): Promise<boolean> {
    const changed = await this.sql.run(
      "DELETE FROM project_secrets WHERE project_uid = ? AND name = ?",
      projectUid,
      name,
    );
    return changed > 0;
  }

  async getGlobalTransform(projectUid: string): Promise<GlobalTransformRecord | undefined> {
    // Read by every session's events.
    const row = await reread.get<TransformRow>(
      this.sql,
      "SELECT * FROM global_transforms WHERE project_uid = ?",
      projectUid,
    );
    return (
      row && {
        projectUid: row.project_uid,
        transform: row.transform,
        enabled: row.enabled === 1 || row.enabled === true,
        modified: Number(row.modified),
      }
    );
  }

  async setGlobalTransform(
    projectUid: string,
    change: { transform?: string; enabled?: boolean },
    modified: number,
  ): Promise<GlobalTransformRecord> {
    const enabled = change.enabled === undefined ? null : change.enabled ? 1 : 0;
    await this.sql.run(
      `INSERT INTO global_transforms (project_uid, transform, enabled, modified) VALUES (?, ?, ?, ?)
       ON CONFLICT (project_uid) DO UPDATE SET
        transform = COALESCE(?, global_transforms.transform),
        enabled = COALESCE(?, global_transforms.enabled), modified = excluded.modified`,
      projectUid,
      change.transform ?? "",
      enabled ?? 0,
      modified,
      change.transform ?? null,
      enabled,
    );
    return (await this.getGlobalTransform(projectUid))!;
  }
}
