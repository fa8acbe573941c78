import type { EnvStore, ProjectStore } from "../HubStore.js";
import type {
  EnvScope,
  EnvVarRecord,
  FleetRecord,
  ProductRecord,
  ProjectRecord,
  ProjectRole,
  UserRecord,
} from "../records.js";
import { StoreError } from "../StoreError.js";
import { user, type UserRow } from "../sqlite/SqliteAccountStore.js";
import { record as envRecord, type EnvRow } from "../sqlite/SqliteEnvStore.js";
import { int } from "../sqlite/SqliteConnection.js";
import {
  fleet,
  product,
  project,
  type FleetRow,
  type ProductRow,
  type ProjectRow,
} from "../sqlite/SqliteProjectStore.js";
import type { PgConnection } from "./PgConnection.js";

/** Projects with their members, products and fleets, on PostgreSQL. */
export class PgProjectStore implements ProjectStore {
  constructor(
    private readonly sql: PgConnection,
    /** Rewrites device documents after membership changes made here. */
    private readonly refreshDevices: (uids: Iterable<string>) => Promise<void>,
  ) {}

  async createProject(p: ProjectRecord): Promise<void> {
    await this.sql.run(
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
    const row = await this.sql.get<ProjectRow>("SELECT * FROM projects WHERE uid = ?", uid);
    return row && project(row);
  }

  async listProjects(): Promise<ProjectRecord[]> {
    return (await this.sql.all<ProjectRow>("SELECT * FROM projects ORDER BY created, uid")).map(project);
  }

  async setMember(projectUid: string, userUid: string, role: ProjectRole): Promise<void> {
    await this.sql.run(
      `INSERT INTO project_members (project_uid, user_uid, role) VALUES (?, ?, ?)
       ON CONFLICT (project_uid, user_uid) DO UPDATE SET role = excluded.role`,
      projectUid,
      userUid,
      role,
    );
  }

  async removeMember(projectUid: string, userUid: string): Promise<void> {
    await this.sql.run(
      "DELETE FROM project_members WHERE project_uid = ? AND user_uid = ?",
      projectUid,
      userUid,
    );
  }

  async getRole(projectUid: string, userUid: string): Promise<ProjectRole | undefined> {
    const row = await this.sql.get<{ role: ProjectRole }>(
      "SELECT role FROM project_members WHERE project_uid = ? AND user_uid = ?",
      projectUid,
      userUid,
    );
    return row?.role;
  }

  async listProjectsOf(userUid: string): Promise<{ project: ProjectRecord; role: ProjectRole }[]> {
    const rows = await this.sql.all<ProjectRow & { role: ProjectRole }>(
      `SELECT p.*, m.role FROM projects p JOIN project_members m ON m.project_uid = p.uid
       WHERE m.user_uid = ? ORDER BY p.created, p.uid`,
      userUid,
    );
    return rows.map((r) => ({ project: project(r), role: r.role }));
  }

  async listMembers(projectUid: string): Promise<{ user: UserRecord; role: ProjectRole }[]> {
    const rows = await this.sql.all<UserRow & { role: ProjectRole }>(
      `SELECT u.*, m.role FROM users u JOIN project_members m ON m.user_uid = u.uid
       WHERE m.project_uid = ? ORDER BY u.created, u.uid`,
      projectUid,
    );
    return rows.map((r) => ({ user: user(r), role: r.role }));
  }

  async createProduct(p: ProductRecord): Promise<void> {
    const stored = await this.sql.run(
      `INSERT INTO products (uid, project_uid, label, disable_devices_by_default, auto_provision_fleets, created)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING`,
      p.uid,
      p.projectUid,
      p.label,
      int(p.disableDevicesByDefault),
      p.autoProvisionFleets === null ? null : JSON.stringify(p.autoProvisionFleets),
      p.created,
    );
    if (stored === 0) throw new StoreError("conflict", `product already exists: ${p.uid}`);
  }

  async getProduct(uid: string): Promise<ProductRecord | undefined> {
    const row = await this.sql.get<ProductRow>("SELECT * FROM products WHERE uid = ?", uid);
    return row && product(row);
  }

  async listProducts(projectUid: string): Promise<ProductRecord[]> {
    const rows = await this.sql.all<ProductRow>(
      "SELECT * FROM products WHERE project_uid = ? ORDER BY created, uid",
      projectUid,
    );
    return rows.map(product);
  }

  async deleteProduct(uid: string): Promise<void> {
    await this.sql.atomic(async () => {
      // The product's row is locked first: a device provisioned into it meanwhile waits.
      await this.sql.run("SELECT 1 FROM products WHERE uid = ? FOR UPDATE", uid);
      const used = await this.sql.get<{ n: number }>(
        "SELECT count(*) AS n FROM devices WHERE product_uid = ?",
        uid,
      );
      if (used && used.n > 0) {
        throw new StoreError(
          "conflict",
          `product ${uid} still has ${used.n} device(s); delete or move them first`,
        );
      }
      await this.sql.run("DELETE FROM products WHERE uid = ?", uid);
    });
  }

  async createFleet(f: FleetRecord): Promise<void> {
    await this.sql.run(
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
    const row = await this.sql.get<FleetRow>("SELECT * FROM fleets WHERE uid = ?", uid);
    return row && fleet(row);
  }

  async listFleets(projectUid: string): Promise<FleetRecord[]> {
    const rows = await this.sql.all<FleetRow>(
      "SELECT * FROM fleets WHERE project_uid = ? ORDER BY created, uid",
      projectUid,
    );
    return rows.map(fleet);
  }

  async updateFleet(
    uid: string,
    changes: Partial<Omit<FleetRecord, "uid" | "projectUid" | "created">>,
    membership?: { add: string[]; remove: string[] },
  ): Promise<FleetRecord> {
    return this.sql.atomic(async () => {
      const row = await this.sql.get<FleetRow>("SELECT * FROM fleets WHERE uid = ? FOR UPDATE", uid);
      if (!row) throw new StoreError("not-found", `fleet not found: ${uid}`);
      const next = { ...fleet(row), ...changes };
      await this.sql.run(
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
          const d = await this.sql.get<{ project_uid: string }>(
            "SELECT project_uid FROM devices WHERE uid = ?",
            device,
          );
          if (!d || d.project_uid !== row.project_uid) {
            throw new StoreError("not-found", `device not found in this project: ${device}`);
          }
          await this.sql.run(
            "INSERT INTO device_fleets (device_uid, fleet_uid) VALUES (?, ?) ON CONFLICT DO NOTHING",
            device,
            uid,
          );
        }
        for (const device of membership.remove) {
          await this.sql.run("DELETE FROM device_fleets WHERE device_uid = ? AND fleet_uid = ?", device, uid);
        }
        await this.refreshDevices(new Set([...membership.add, ...membership.remove]));
      }
      return next;
    });
  }

  async deleteFleet(uid: string): Promise<void> {
    await this.sql.atomic(async () => {
      const members = (
        await this.sql.all<{ device_uid: string }>(
          "SELECT device_uid FROM device_fleets WHERE fleet_uid = ?",
          uid,
        )
      ).map((r) => r.device_uid);
      await this.sql.run("DELETE FROM env_vars WHERE scope = 'fleet' AND owner_uid = ?", uid);
      await this.sql.run("DELETE FROM device_fleets WHERE fleet_uid = ?", uid);
      await this.sql.run("DELETE FROM fleets WHERE uid = ?", uid);
      await this.refreshDevices(members);
    });
  }
}

/** Environment variables of projects, fleets and devices, on PostgreSQL. */
export class PgEnvStore implements EnvStore {
  constructor(private readonly sql: PgConnection) {}

  async #projectOf(scope: EnvScope): Promise<string> {
    const query =
      scope.kind === "project"
        ? "SELECT uid AS project_uid FROM projects WHERE uid = ?"
        : scope.kind === "fleet"
          ? "SELECT project_uid FROM fleets WHERE uid = ?"
          : "SELECT project_uid FROM devices WHERE uid = ?";
    const row = await this.sql.get<{ project_uid: string }>(query, scope.uid);
    if (!row) throw new StoreError("not-found", `${scope.kind} not found: ${scope.uid}`);
    return row.project_uid;
  }

  async get(scope: EnvScope): Promise<EnvVarRecord[]> {
    const rows = await this.sql.all<EnvRow>(
      "SELECT * FROM env_vars WHERE scope = ? AND owner_uid = ? ORDER BY key",
      scope.kind,
      scope.uid,
    );
    return rows.map(envRecord);
  }

  async set(scope: EnvScope, vars: Record<string, string>, now: number): Promise<EnvVarRecord[]> {
    return this.sql.atomic(async () => {
      const projectUid = await this.#projectOf(scope);
      for (const [key, value] of Object.entries(vars)) {
        // An unchanged value keeps its modification time, so modules see no spurious change.
        await this.sql.run(
          `INSERT INTO env_vars (scope, owner_uid, project_uid, key, value, modified) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (scope, owner_uid, key) DO UPDATE SET value = excluded.value, modified = excluded.modified
           WHERE env_vars.value IS DISTINCT FROM excluded.value`,
          scope.kind,
          scope.uid,
          projectUid,
          key,
          value,
          now,
        );
      }
      return this.get(scope);
    });
  }

  async delete(scope: EnvScope, key: string): Promise<boolean> {
    const changed = await this.sql.run(
      "DELETE FROM env_vars WHERE scope = ? AND owner_uid = ? AND key = ?",
      scope.kind,
      scope.uid,
      key,
    );
    return changed > 0;
  }

  async forProject(projectUid: string): Promise<{
    project: EnvVarRecord[];
    fleets: Map<string, EnvVarRecord[]>;
    devices: Map<string, EnvVarRecord[]>;
    defaults: Map<string, EnvVarRecord[]>;
  }> {
    const result = {
      project: [] as EnvVarRecord[],
      fleets: new Map<string, EnvVarRecord[]>(),
      devices: new Map<string, EnvVarRecord[]>(),
      defaults: new Map<string, EnvVarRecord[]>(),
    };
    const add = (map: Map<string, EnvVarRecord[]>, r: EnvRow): void => {
      const list = map.get(r.owner_uid) ?? [];
      list.push(envRecord(r));
      map.set(r.owner_uid, list);
    };
    const rows = await this.sql.all<EnvRow>(
      "SELECT * FROM env_vars WHERE project_uid = ? ORDER BY owner_uid, key",
      projectUid,
    );
    for (const r of rows) {
      if (r.scope === "project") result.project.push(envRecord(r));
      else if (r.scope === "fleet") add(result.fleets, r);
      else if (r.scope === "device") add(result.devices, r);
      else add(result.defaults, r);
    }
    return result;
  }
}
