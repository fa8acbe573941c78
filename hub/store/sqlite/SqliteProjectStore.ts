import type { ProjectStore } from "../HubStore.js";
import type { FleetRecord, ProductRecord, ProjectRecord, ProjectRole, UserRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import { bool, int, parseJson, type SqliteConnection } from "./SqliteConnection.js";

export interface ProjectRow {
  uid: string;
  label: string;
  org_uid: string;
  created: number;
  admin_contact: string | null;
  tech_contact: string | null;
}

export interface ProductRow {
  uid: string;
  project_uid: string;
  label: string;
  disable_devices_by_default: number;
  auto_provision_fleets: string | null;
  created: number;
}

export interface FleetRow {
  uid: string;
  project_uid: string;
  label: string;
  created: number;
  smart_rule: string | null;
  smart_rule_enabled: number;
  watchdog_mins: number;
  connectivity_assurance: number | null;
}

export const project = (r: ProjectRow): ProjectRecord => ({
  uid: r.uid,
  label: r.label,
  orgUid: r.org_uid,
  created: r.created,
  administrativeContact: parseJson(r.admin_contact, null),
  technicalContact: parseJson(r.tech_contact, null),
});

export const product = (r: ProductRow): ProductRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  label: r.label,
  disableDevicesByDefault: bool(r.disable_devices_by_default),
  autoProvisionFleets: parseJson(r.auto_provision_fleets, null),
  created: r.created,
});

export const fleet = (r: FleetRow): FleetRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  label: r.label,
  created: r.created,
  smartRule: r.smart_rule,
  smartRuleEnabled: bool(r.smart_rule_enabled),
  watchdogMins: r.watchdog_mins,
  connectivityAssurance: r.connectivity_assurance === null ? null : bool(r.connectivity_assurance),
});

export class SqliteProjectStore implements ProjectStore {
  constructor(
    private readonly sql: SqliteConnection,
    /** Rewrites device documents after membership changes made here. */
    private readonly refreshDevices: (uids: Iterable<string>) => void,
  ) {}

  async createProject(p: ProjectRecord): Promise<void> {
    this.sql.run(
      "INSERT INTO projects (uid, label, org_uid, created, admin_contact, tech_contact) VALUES (?, ?, ?, ?, ?, ?)",
      p.uid,
      p.label,
      p.orgUid,
      p.created,
      p.administrativeContact ? JSON.stringify(p.administrativeContact) : null,
      p.technicalContact ? JSON.stringify(p.technicalContact) : null,
    );
  }

  async getProject(uid: string): Promise<ProjectRecord | undefined> {
    const row = this.sql.cachedGet<ProjectRow>("SELECT * FROM projects WHERE uid = ?", uid);
    return row && project(row);
  }

  async listProjects(): Promise<ProjectRecord[]> {
    return this.sql.all<ProjectRow>("SELECT * FROM projects ORDER BY created, uid").map(project);
  }

  async setMember(projectUid: string, userUid: string, role: ProjectRole): Promise<void> {
    this.sql.run(
      `INSERT INTO project_members (project_uid, user_uid, role) VALUES (?, ?, ?)
       ON CONFLICT (project_uid, user_uid) DO UPDATE SET role = excluded.role`,
      projectUid,
      userUid,
      role,
    );
  }

  async removeMember(projectUid: string, userUid: string): Promise<void> {
    this.sql.run("DELETE FROM project_members WHERE project_uid = ? AND user_uid = ?", projectUid, userUid);
  }

  async getRole(projectUid: string, userUid: string): Promise<ProjectRole | undefined> {
    return this.sql.cachedGet<{ role: ProjectRole }>(
      "SELECT role FROM project_members WHERE project_uid = ? AND user_uid = ?",
      projectUid,
      userUid,
    )?.role;
  }

  async listProjectsOf(userUid: string): Promise<{ project: ProjectRecord; role: ProjectRole }[]> {
    return this.sql
      .all<ProjectRow & { role: ProjectRole }>(
        `SELECT p.*, m.role FROM projects p JOIN project_members m ON m.project_uid = p.uid
         WHERE m.user_uid = ? ORDER BY p.created, p.uid`,
        userUid,
      )
      .map((r) => ({ project: project(r), role: r.role }));
  }

  async listMembers(projectUid: string): Promise<{ user: UserRecord; role: ProjectRole }[]> {
    return this.sql
      .all<{
        uid: string;
        username: string;
        name: string;
        email: string;
        password_hash: string;
        staff: number;
        created: number;
        role: ProjectRole;
      }>(
        `SELECT u.*, m.role FROM users u JOIN project_members m ON m.user_uid = u.uid
         WHERE m.project_uid = ? ORDER BY u.created, u.uid`,
        projectUid,
      )
      .map((r) => ({
        user: {
          uid: r.uid,
          username: r.username,
          name: r.name,
          email: r.email,
          passwordHash: r.password_hash,
          staff: bool(r.staff),
          created: r.created,
        },
        role: r.role,
      }));
  }

  async createProduct(p: ProductRecord): Promise<void> {
    this.sql.transaction(() => {
      if (this.sql.get("SELECT 1 FROM products WHERE uid = ?", p.uid)) {
        throw new StoreError("conflict", `product already exists: ${p.uid}`);
      }
      this.sql.run(
        `INSERT INTO products (uid, project_uid, label, disable_devices_by_default, auto_provision_fleets, created)
         VALUES (?, ?, ?, ?, ?, ?)`,
        p.uid,
        p.projectUid,
        p.label,
        int(p.disableDevicesByDefault),
        p.autoProvisionFleets === null ? null : JSON.stringify(p.autoProvisionFleets),
        p.created,
      );
    });
  }

  async getProduct(uid: string): Promise<ProductRecord | undefined> {
    // Read by every session's open.
    const row = this.sql.cachedGet<ProductRow>("SELECT * FROM products WHERE uid = ?", uid);
    return row && product(row);
  }

  async listProducts(projectUid: string): Promise<ProductRecord[]> {
    return this.sql
      .all<ProductRow>("SELECT * FROM products WHERE project_uid = ? ORDER BY created, uid", projectUid)
      .map(product);
  }

  async deleteProduct(uid: string): Promise<void> {
    this.sql.transaction(() => {
      const used = this.sql.get<{ n: number }>(
        "SELECT count(*) AS n FROM devices WHERE product_uid = ?",
        uid,
      );
      if (used && used.n > 0) {
        throw new StoreError(
          "conflict",
          `product ${uid} still has ${used.n} device(s); delete or move them first`,
        );
      }
      this.sql.run("DELETE FROM products WHERE uid = ?", uid);
    });
  }

  async createFleet(f: FleetRecord): Promise<void> {
    this.sql.run(
      `INSERT INTO fleets (uid, project_uid, label, created, smart_rule, smart_rule_enabled, watchdog_mins,
        connectivity_assurance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      f.uid,
      f.projectUid,
      f.label,
      f.created,
      f.smartRule,
      int(f.smartRuleEnabled),
      f.watchdogMins,
      f.connectivityAssurance === null ? null : int(f.connectivityAssurance),
    );
  }

  async getFleet(uid: string): Promise<FleetRecord | undefined> {
    const row = this.sql.get<FleetRow>("SELECT * FROM fleets WHERE uid = ?", uid);
    return row && fleet(row);
  }

  async listFleets(projectUid: string): Promise<FleetRecord[]> {
    // Read after every session (smart fleets' rules).
    return this.sql
      .cachedAll<FleetRow>("SELECT * FROM fleets WHERE project_uid = ? ORDER BY created, uid", projectUid)
      .map(fleet);
  }

  async updateFleet(
    uid: string,
    changes: Partial<Omit<FleetRecord, "uid" | "projectUid" | "created">>,
    membership?: { add: string[]; remove: string[] },
  ): Promise<FleetRecord> {
    return this.sql.transaction(() => {
      const row = this.sql.get<FleetRow>("SELECT * FROM fleets WHERE uid = ?", uid);
      if (!row) throw new StoreError("not-found", `fleet not found: ${uid}`);
      const next = { ...fleet(row), ...changes };
      this.sql.run(
        `UPDATE fleets SET label = ?, smart_rule = ?, smart_rule_enabled = ?, watchdog_mins = ?,
          connectivity_assurance = ? WHERE uid = ?`,
        next.label,
        next.smartRule,
        int(next.smartRuleEnabled),
        next.watchdogMins,
        next.connectivityAssurance === null ? null : int(next.connectivityAssurance),
        uid,
      );
      if (membership) {
        for (const device of membership.add) {
          const d = this.sql.get<{ project_uid: string }>(
            "SELECT project_uid FROM devices WHERE uid = ?",
            device,
          );
          if (!d || d.project_uid !== row.project_uid) {
            throw new StoreError("not-found", `device not found in this project: ${device}`);
          }
          this.sql.run(
            "INSERT OR IGNORE INTO device_fleets (device_uid, fleet_uid) VALUES (?, ?)",
            device,
            uid,
          );
        }
        for (const device of membership.remove) {
          this.sql.run("DELETE FROM device_fleets WHERE device_uid = ? AND fleet_uid = ?", device, uid);
        }
        this.refreshDevices(new Set([...membership.add, ...membership.remove]));
      }
      return next;
    });
  }

  async deleteFleet(uid: string): Promise<void> {
    this.sql.transaction(() => {
      const members = this.sql
        .all<{ device_uid: string }>("SELECT device_uid FROM device_fleets WHERE fleet_uid = ?", uid)
        .map((r) => r.device_uid);
      this.sql.run("DELETE FROM env_vars WHERE scope = 'fleet' AND owner_uid = ?", uid);
      this.sql.run("DELETE FROM device_fleets WHERE fleet_uid = ?", uid);
      this.sql.run("DELETE FROM fleets WHERE uid = ?", uid);
      this.refreshDevices(members);
    });
  }
}
