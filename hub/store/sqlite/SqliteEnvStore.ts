import type { EnvStore } from "../HubStore.js";
import type { EnvScope, EnvVarRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import type { SqliteConnection } from "./SqliteConnection.js";

export interface EnvRow {
  scope: string;
  owner_uid: string;
  key: string;
  value: string;
  modified: number;
}

export const record = (r: EnvRow): EnvVarRecord => ({ key: r.key, value: r.value, modified: r.modified });

export class SqliteEnvStore implements EnvStore {
  constructor(private readonly sql: SqliteConnection) {}

  #projectOf(scope: EnvScope): string {
    let row: { project_uid: string } | undefined;
    switch (scope.kind) {
      case "project":
        row = this.sql.get("SELECT uid AS project_uid FROM projects WHERE uid = ?", scope.uid);
        break;
      case "fleet":
        row = this.sql.get("SELECT project_uid FROM fleets WHERE uid = ?", scope.uid);
        break;
      default:
        row = this.sql.get("SELECT project_uid FROM devices WHERE uid = ?", scope.uid);
    }
    if (!row) throw new StoreError("not-found", `${scope.kind} not found: ${scope.uid}`);
    return row.project_uid;
  }

  #get(scope: EnvScope): EnvVarRecord[] {
    // Read several times in one message (the environment of an open reply, its firmware offer).
    return this.sql
      .cachedAll<EnvRow>(
        "SELECT * FROM env_vars WHERE scope = ? AND owner_uid = ? ORDER BY key",
        scope.kind,
        scope.uid,
      )
      .map(record);
  }

  async get(scope: EnvScope): Promise<EnvVarRecord[]> {
    return this.#get(scope);
  }

  async set(scope: EnvScope, vars: Record<string, string>, now: number): Promise<EnvVarRecord[]> {
    return this.sql.transaction(() => {
      const project = this.#projectOf(scope);
      for (const [key, value] of Object.entries(vars)) {
        // An unchanged value keeps its modification time, so modules see no spurious change.
        this.sql.run(
          `INSERT INTO env_vars (scope, owner_uid, project_uid, key, value, modified) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (scope, owner_uid, key) DO UPDATE SET value = excluded.value, modified = excluded.modified
           WHERE env_vars.value IS NOT excluded.value`,
          scope.kind,
          scope.uid,
          project,
          key,
          value,
          now,
        );
      }
      return this.#get(scope);
    });
  }

  async delete(scope: EnvScope, key: string): Promise<boolean> {
    const result = this.sql.run(
      "DELETE FROM env_vars WHERE scope = ? AND owner_uid = ? AND key = ?",
      scope.kind,
      scope.uid,
      key,
    );
    return result.changes > 0;
  }

  async forProject(projectUid: string): Promise<{
    project: EnvVarRecord[];
    fleets: Map<string, EnvVarRecord[]>;
    devices: Map<string, EnvVarRecord[]>;
    defaults: Map<string, EnvVarRecord[]>;
  }> {
    const project: EnvVarRecord[] = [];
    const fleets = new Map<string, EnvVarRecord[]>();
    const devices = new Map<string, EnvVarRecord[]>();
    const defaults = new Map<string, EnvVarRecord[]>();
    const add = (map: Map<string, EnvVarRecord[]>, r: EnvRow): void => {
      const list = map.get(r.owner_uid) ?? [];
      list.push(record(r));
      map.set(r.owner_uid, list);
    };
    for (const r of this.sql.all<EnvRow>(
      "SELECT * FROM env_vars WHERE project_uid = ? ORDER BY owner_uid, key",
      projectUid,
    )) {
      if (r.scope === "project") project.push(record(r));
      else if (r.scope === "fleet") add(fleets, r);
      else if (r.scope === "device") add(devices, r);
      else add(defaults, r);
    }
    return { project, fleets, devices, defaults };
  }
}
