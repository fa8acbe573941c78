import type { AccountStore, CredentialStore, DescriptionStore } from "../HubStore.js";
import type {
  AccessTokenRecord,
  DescriptionRecord,
  OAuthClientRecord,
  OrganizationRecord,
  OrgRole,
  TokenKind,
  UserRecord,
} from "../records.js";
import { int } from "../sqlite/SqliteConnection.js";
import { organization, user, type OrgRow, type UserRow } from "../sqlite/SqliteAccountStore.js";
import { client, token, type ClientRow, type TokenRow } from "../sqlite/SqliteCredentialStore.js";
import { COLUMNS, record, type DescriptionRow } from "../sqlite/SqliteDescriptionStore.js";
import type { PgConnection } from "./PgConnection.js";

// Users and organizations, access tokens and OAuth clients, and descriptions on PostgreSQL: the
// SQLite store's statements (their rows map the same way), with usernames unique whatever their
// case through an index on lower(username).

export class PgAccountStore implements AccountStore {
  constructor(private readonly sql: PgConnection) {}

  async createUser(u: UserRecord): Promise<void> {
    await this.sql.run(
      "INSERT INTO users (uid, username, name, email, password_hash, staff, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
      u.uid,
      u.username,
      u.name,
      u.email,
      u.passwordHash,
      int(u.staff),
      u.created,
    );
  }

  async getUser(uid: string): Promise<UserRecord | undefined> {
    const row = await this.sql.get<UserRow>("SELECT * FROM users WHERE uid = ?", uid);
    return row && user(row);
  }

  async getUserByUsername(username: string): Promise<UserRecord | undefined> {
    const row = await this.sql.get<UserRow>("SELECT * FROM users WHERE lower(username) = lower(?)", username);
    return row && user(row);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.sql.all<UserRow>("SELECT * FROM users ORDER BY created, uid")).map(user);
  }

  async setPasswordHash(uid: string, passwordHash: string): Promise<void> {
    await this.sql.run("UPDATE users SET password_hash = ? WHERE uid = ?", passwordHash, uid);
  }

  async createOrganization(o: OrganizationRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO organizations (uid, name, owner_uid, email, contact_uid, suspended, plan_type,
        event_capacity, plan_start, plan_end, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      o.uid,
      o.name,
      o.ownerUid,
      o.email,
      o.contactUid,
      int(o.suspended),
      o.planType,
      o.eventCapacity,
      o.planStart,
      o.planEnd,
      o.created,
    );
  }

  async getOrganization(uid: string): Promise<OrganizationRecord | undefined> {
    const row = await this.sql.get<OrgRow>("SELECT * FROM organizations WHERE uid = ?", uid);
    return row && organization(row);
  }

  async setOrgMember(orgUid: string, userUid: string, role: OrgRole): Promise<void> {
    await this.sql.run(
      `INSERT INTO org_members (org_uid, user_uid, role) VALUES (?, ?, ?)
       ON CONFLICT (org_uid, user_uid) DO UPDATE SET role = excluded.role`,
      orgUid,
      userUid,
      role,
    );
  }

  async getOrgRole(orgUid: string, userUid: string): Promise<OrgRole | undefined> {
    const row = await this.sql.get<{ role: OrgRole }>(
      "SELECT role FROM org_members WHERE org_uid = ? AND user_uid = ?",
      orgUid,
      userUid,
    );
    return row?.role;
  }

  async listOrganizationsOf(userUid: string): Promise<{ org: OrganizationRecord; role: OrgRole }[]> {
    const rows = await this.sql.all<OrgRow & { role: OrgRole }>(
      `SELECT o.*, m.role FROM organizations o JOIN org_members m ON m.org_uid = o.uid
       WHERE m.user_uid = ? ORDER BY o.created, o.uid`,
      userUid,
    );
    return rows.map((r) => ({ org: organization(r), role: r.role }));
  }
}

export class PgCredentialStore implements CredentialStore {
  constructor(private readonly sql: PgConnection) {}

  async createToken(t: AccessTokenRecord): Promise<void> {
    await this.sql.run(
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
    const row = await this.sql.get<TokenRow>("SELECT * FROM access_tokens WHERE hash = ?", hash);
    return row && token(row);
  }

  async getToken(uid: string): Promise<AccessTokenRecord | undefined> {
    const row = await this.sql.get<TokenRow>("SELECT * FROM access_tokens WHERE uid = ?", uid);
    return row && token(row);
  }

  async listTokens(kind: TokenKind): Promise<AccessTokenRecord[]> {
    const rows = await this.sql.all<TokenRow>(
      "SELECT * FROM access_tokens WHERE kind = ? ORDER BY created, uid",
      kind,
    );
    return rows.map(token);
  }

  async setTokenSuspended(uid: string, suspended: boolean): Promise<boolean> {
    return (
      (await this.sql.run("UPDATE access_tokens SET suspended = ? WHERE uid = ?", int(suspended), uid)) > 0
    );
  }

  async deleteToken(uid: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM access_tokens WHERE uid = ?", uid)) > 0;
  }

  async touchToken(uid: string, now: number): Promise<void> {
    await this.sql.run("UPDATE access_tokens SET last_used = ? WHERE uid = ?", now, uid);
  }

  async purgeExpiredTokens(now: number): Promise<number> {
    // Personal access tokens stay listed after expiry (their owner sees why they stopped working).
    return this.sql.run(
      "DELETE FROM access_tokens WHERE kind != 'pat' AND expires IS NOT NULL AND expires <= ?",
      now,
    );
  }

  async createOAuthClient(c: OAuthClientRecord): Promise<void> {
    await this.sql.run(
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
    const row = await this.sql.get<ClientRow>("SELECT * FROM oauth_clients WHERE client_id = ?", clientId);
    return row && client(row);
  }

  async listOAuthClients(): Promise<OAuthClientRecord[]> {
    return (await this.sql.all<ClientRow>("SELECT * FROM oauth_clients ORDER BY created, client_id")).map(
      client,
    );
  }
}

export class PgDescriptionStore implements DescriptionStore {
  constructor(private readonly sql: PgConnection) {}

  async put(d: DescriptionRecord, content: Uint8Array): Promise<DescriptionRecord> {
    // A replacement keeps the original creation time and author.
    const row = await this.sql.get<DescriptionRow>(
      `INSERT INTO descriptions (name, content_type, content, size, created, modified, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET content_type = excluded.content_type, content = excluded.content,
        size = excluded.size, modified = excluded.modified
       RETURNING ${COLUMNS}`,
      d.name,
      d.contentType,
      Buffer.from(content.buffer, content.byteOffset, content.byteLength),
      content.length,
      d.created,
      d.modified,
      d.createdBy,
    );
    return record(row!);
  }

  async get(name: string): Promise<{ record: DescriptionRecord; content: Uint8Array } | undefined> {
    const row = await this.sql.get<DescriptionRow & { content: Uint8Array }>(
      `SELECT ${COLUMNS}, content FROM descriptions WHERE name = ?`,
      name,
    );
    return row && { record: record(row), content: row.content };
  }

  async list(): Promise<DescriptionRecord[]> {
    return (await this.sql.all<DescriptionRow>(`SELECT ${COLUMNS} FROM descriptions ORDER BY name`)).map(
      record,
    );
  }

  async delete(name: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM descriptions WHERE name = ?", name)) > 0;
  }
}
