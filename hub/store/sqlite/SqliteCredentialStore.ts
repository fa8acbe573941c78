import type { CredentialStore } from "../HubStore.js";
import type { AccessTokenRecord, OAuthClientRecord, ProjectRole, TokenKind } from "../records.js";
import { bool, int, type SqliteConnection } from "./SqliteConnection.js";

export interface TokenRow {
  uid: string;
  kind: TokenKind;
  hash: string;
  user_uid: string | null;
  client_id: string | null;
  project_uid: string | null;
  role: ProjectRole | null;
  scope: string | null;
  name: string;
  description: string;
  created: number;
  expires: number | null;
  suspended: number;
  last_used: number | null;
}

export interface ClientRow {
  client_id: string;
  secret_hash: string;
  project_uid: string;
  role: ProjectRole;
  name: string;
  created: number;
  created_by: string;
}

export const token = (r: TokenRow): AccessTokenRecord => ({
  uid: r.uid,
  kind: r.kind,
  hash: r.hash,
  userUid: r.user_uid,
  clientId: r.client_id,
  projectUid: r.project_uid,
  role: r.role,
  scope: r.scope,
  name: r.name,
  description: r.description,
  created: r.created,
  expires: r.expires,
  suspended: bool(r.suspended),
  lastUsed: r.last_used,
});

export const client = (r: ClientRow): OAuthClientRecord => ({
  clientId: r.client_id,
  secretHash: r.secret_hash,
  projectUid: r.project_uid,
  role: r.role,
  name: r.name,
  created: r.created,
  createdBy: r.created_by,
});

export class SqliteCredentialStore implements CredentialStore {
  constructor(private readonly sql: SqliteConnection) {}

  async createToken(t: AccessTokenRecord): Promise<void> {
    this.sql.run(
      `INSERT INTO access_tokens (uid, kind, hash, user_uid, client_id, project_uid, role, scope, name, description,
        created, expires, suspended, last_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      t.uid,
      t.kind,
      t.hash,
      t.userUid,
      t.clientId,
      t.projectUid,
      t.role,
      t.scope,
      t.name,
      t.description,
      t.created,
      t.expires,
      int(t.suspended),
      t.lastUsed,
    );
  }

  async findTokenByHash(hash: string): Promise<AccessTokenRecord | undefined> {
    const row = this.sql.cachedGet<TokenRow>("SELECT * FROM access_tokens WHERE hash = ?", hash);
    return row && token(row);
  }

  async getToken(uid: string): Promise<AccessTokenRecord | undefined> {
    const row = this.sql.get<TokenRow>("SELECT * FROM access_tokens WHERE uid = ?", uid);
    return row && token(row);
  }

  async listTokens(kind: TokenKind): Promise<AccessTokenRecord[]> {
    return this.sql
      .all<TokenRow>("SELECT * FROM access_tokens WHERE kind = ? ORDER BY created, uid", kind)
      .map(token);
  }

  async setTokenSuspended(uid: string, suspended: boolean): Promise<boolean> {
    return (
      this.sql.run("UPDATE access_tokens SET suspended = ? WHERE uid = ?", int(suspended), uid).changes > 0
    );
  }

  async deleteToken(uid: string): Promise<boolean> {
    return this.sql.run("DELETE FROM access_tokens WHERE uid = ?", uid).changes > 0;
  }

  async touchToken(uid: string, now: number): Promise<void> {
    this.sql.run("UPDATE access_tokens SET last_used = ? WHERE uid = ?", now, uid);
  }

  async purgeExpiredTokens(now: number): Promise<number> {
    // Personal access tokens stay listed after expiry (their owner sees why they stopped working).
    return this.sql.run(
      "DELETE FROM access_tokens WHERE kind != 'pat' AND expires IS NOT NULL AND expires <= ?",
      now,
    ).changes;
  }

  async createOAuthClient(c: OAuthClientRecord): Promise<void> {
    this.sql.run(
      `INSERT INTO oauth_clients (client_id, secret_hash, project_uid, role, name, created, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      c.clientId,
      c.secretHash,
      c.projectUid,
      c.role,
      c.name,
      c.created,
      c.createdBy,
    );
  }

  async getOAuthClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    const row = this.sql.cachedGet<ClientRow>("SELECT * FROM oauth_clients WHERE client_id = ?", clientId);
    return row && client(row);
  }

  async listOAuthClients(): Promise<OAuthClientRecord[]> {
    return this.sql.all<ClientRow>("SELECT * FROM oauth_clients ORDER BY created, client_id").map(client);
  }
}
