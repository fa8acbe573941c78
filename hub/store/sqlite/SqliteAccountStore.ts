import type { AccountStore } from "../HubStore.js";
import type { OrganizationRecord, OrgRole, UserRecord } from "../records.js";
import { bool, int, type SqliteConnection } from "./SqliteConnection.js";

export interface UserRow {
  uid: string;
  username: string;
  name: string;
  email: string;
  password_hash: string;
  staff: number;
  created: number;
}

export interface OrgRow {
  uid: string;
  name: string;
  owner_uid: string;
  email: string;
  contact_uid: string;
  suspended: number;
  plan_type: string;
  event_capacity: number;
  plan_start: number;
  plan_end: number | null;
  created: number;
}

export const user = (r: UserRow): UserRecord => ({
  uid: r.uid,
  username: r.username,
  name: r.name,
  email: r.email,
  passwordHash: r.password_hash,
  staff: bool(r.staff),
  created: r.created,
});

export const organization = (r: OrgRow): OrganizationRecord => ({
  uid: r.uid,
  name: r.name,
  ownerUid: r.owner_uid,
  email: r.email,
  contactUid: r.contact_uid,
  suspended: bool(r.suspended),
  planType: r.plan_type === "Enterprise" ? "Enterprise" : "Essentials",
  eventCapacity: r.event_capacity,
  planStart: r.plan_start,
  planEnd: r.plan_end,
  created: r.created,
});

export class SqliteAccountStore implements AccountStore {
  constructor(private readonly sql: SqliteConnection) {}

  async createUser(u: UserRecord): Promise<void> {
    this.sql.run(
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
    const row = this.sql.cachedGet<UserRow>("SELECT * FROM users WHERE uid = ?", uid);
    return row && user(row);
  }

  async getUserByUsername(username: string): Promise<UserRecord | undefined> {
    const row = this.sql.get<UserRow>("SELECT * FROM users WHERE username = ?", username);
    return row && user(row);
  }

  async listUsers(): Promise<UserRecord[]> {
    return this.sql.all<UserRow>("SELECT * FROM users ORDER BY created, uid").map(user);
  }

  async setPasswordHash(uid: string, passwordHash: string): Promise<void> {
    this.sql.run("UPDATE users SET password_hash = ? WHERE uid = ?", passwordHash, uid);
  }

  async createOrganization(o: OrganizationRecord): Promise<void> {
    this.sql.run(
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
    const row = this.sql.get<OrgRow>("SELECT * FROM organizations WHERE uid = ?", uid);
    return row && organization(row);
  }

  async setOrgMember(orgUid: string, userUid: string, role: OrgRole): Promise<void> {
    this.sql.run(
      `INSERT INTO org_members (org_uid, user_uid, role) VALUES (?, ?, ?)
       ON CONFLICT (org_uid, user_uid) DO UPDATE SET role = excluded.role`,
      orgUid,
      userUid,
      role,
    );
  }

  async getOrgRole(orgUid: string, userUid: string): Promise<OrgRole | undefined> {
    const row = this.sql.get<{ role: OrgRole }>(
      "SELECT role FROM org_members WHERE org_uid = ? AND user_uid = ?",
      orgUid,
      userUid,
    );
    return row?.role;
  }

  async listOrganizationsOf(userUid: string): Promise<{ org: OrganizationRecord; role: OrgRole }[]> {
    return this.sql
      .all<OrgRow & { role: OrgRole }>(
        `SELECT o.*, m.role FROM organizations o JOIN org_members m ON m.org_uid = o.uid
         WHERE m.user_uid = ? ORDER BY o.created, o.uid`,
        userUid,
      )
      .map((r) => ({ org: organization(r), role: r.role }));
  }
}
