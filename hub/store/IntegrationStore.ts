/**
 * A project's webhooks: named inlets through which outside services post events (their JSONata
 * transform shapes what was posted into the event).
 */
export interface WebhookRecord {
  projectUid: string;
  /** The name the API gives in the path (`webhookUID`), unique in the project. */
  id: string;
  disabled: boolean;
  /** JSONata applied to what is posted (empty: none). */
  transform: string;
  created: number;
  modified: number;
}

/** What a listing shows of a project secret: never its value. */
export interface SecretRecord {
  projectUid: string;
  name: string;
  created: number;
  createdBy: string;
  modified: number | null;
  modifiedBy: string | null;
}

/** A project's global event transformation: a JSONata expression and whether it is applied. */
export interface GlobalTransformRecord {
  projectUid: string;
  transform: string;
  enabled: boolean;
  modified: number;
}

/**
 * Webhooks, project secrets (kept only as the ciphertext the caller made) and global event
 * transformations. Both backends implement it with the same statements (IntegrationSqlStore).
 */
export interface IntegrationStore {
  /** Creates or replaces the project's webhook `id` (a replacement keeps its creation time). */
  putWebhook(webhook: WebhookRecord): Promise<WebhookRecord>;
  getWebhook(projectUid: string, id: string): Promise<WebhookRecord | undefined>;
  /** The project's webhooks by name. */
  listWebhooks(projectUid: string): Promise<WebhookRecord[]>;
  deleteWebhook(projectUid: string, id: string): Promise<boolean>;

  /** Adds the secret with its ciphertext; false (nothing changed) when the name is taken. */
  createSecret(secret: SecretRecord, ciphertext: string): Promise<boolean>;
  /** Replaces the ciphertext; undefined when the project has no such secret. */
  updateSecret(
    projectUid: string,
    name: string,
    ciphertext: string,
    modified: number,
    modifiedBy: string,
  ): Promise<SecretRecord | undefined>;
  getSecret(projectUid: string, name: string): Promise<SecretRecord | undefined>;
  /** The secret's ciphertext, for the hub's own use (routes); never for the API's answers. */
  getSecretCiphertext(projectUid: string, name: string): Promise<string | undefined>;
  /** The project's secrets by name. */
  listSecrets(projectUid: string): Promise<SecretRecord[]>;
  deleteSecret(projectUid: string, name: string): Promise<boolean>;

  getGlobalTransform(projectUid: string): Promise<GlobalTransformRecord | undefined>;
  /** Sets the expression, the flag, or both; the other keeps its value (a new one: "", false). */
  setGlobalTransform(
    projectUid: string,
    change: { transform?: string; enabled?: boolean },
    modified: number,
  ): Promise<GlobalTransformRecord>;
}
