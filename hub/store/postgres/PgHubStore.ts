import type { HubStore, TransactionOptions } from "../HubStore.js";
import { PROJECT_DELETION } from "../projectDeletion.js";
import { IntegrationSqlStore } from "../IntegrationSqlStore.js";
import { PgAccountStore, PgCredentialStore, PgDescriptionStore } from "./PgAccountStore.js";
import { PgClusterStore } from "./PgClusterStore.js";
import { PgConnection } from "./PgConnection.js";
import { PgDeviceStore } from "./PgDeviceStore.js";
import { PgFirmwareStore } from "./PgFirmwareStore.js";
import { PgNotefileStore } from "./PgNotefileStore.js";
import { PgEnvStore, PgProjectStore } from "./PgProjectStore.js";
import { PgRouteStore } from "./PgRouteStore.js";
import { PgTelemetryStore } from "./PgTelemetryStore.js";
import { SqlJobStore, SqlMonitorStore } from "../AutomationSql.js";

/**
 * The hub store on a PostgreSQL server: several hub processes may share one database. Open it
 * with `PgHubStore.open(url)` (connects and migrates).
 */
export class PgHubStore implements HubStore {
  readonly accounts: PgAccountStore;
  readonly projects: PgProjectStore;
  readonly devices: PgDeviceStore;
  readonly env: PgEnvStore;
  readonly notefiles: PgNotefileStore;
  readonly telemetry: PgTelemetryStore;
  readonly descriptions: PgDescriptionStore;
  readonly credentials: PgCredentialStore;
  readonly routes: PgRouteStore;
  readonly firmware: PgFirmwareStore;
  readonly monitors: SqlMonitorStore;
  readonly jobs: SqlJobStore;
  /** What the hub processes over the database share (sessions, challenges, messages). */
  readonly cluster: PgClusterStore;
  readonly integrations: IntegrationSqlStore;

  private constructor(
    readonly connection: PgConnection,
    url: string,
    onRetry: ((message: string) => void) | undefined,
  ) {
    const sql = connection;
    this.accounts = new PgAccountStore(sql);
    this.devices = new PgDeviceStore(sql);
    this.projects = new PgProjectStore(sql, (uids) => this.devices.refreshDevices(uids));
    this.env = new PgEnvStore(sql);
    this.notefiles = new PgNotefileStore(sql);
    this.telemetry = new PgTelemetryStore(sql);
    this.descriptions = new PgDescriptionStore(sql);
    this.credentials = new PgCredentialStore(sql);
    this.routes = new PgRouteStore(sql);
    this.firmware = new PgFirmwareStore(sql);
    this.monitors = new SqlMonitorStore(sql);
    this.jobs = new SqlJobStore(sql);
    this.cluster = new PgClusterStore(sql, this.devices, url, onRetry);
    this.integrations = new IntegrationSqlStore(sql);
  }

  /**
   * Connects to the database at `url` (postgres://user:pass@host:port/db) and migrates it.
   * `onRetry` is told each time a lost connection is asked for again (see PgConnection).
   */
  static async open(
    url: string,
    options: { poolSize?: number; onRetry?: (message: string) => void } = {},
  ): Promise<PgHubStore> {
    const connection = await PgConnection.open(url, {
      ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    });
    const store = new PgHubStore(connection, url, options.onRetry);
    try {
      await store.cluster.start();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  transaction<T>(work: () => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.connection.transaction(work, options);
  }

  afterCommit(action: () => void): void {
    this.connection.afterCommit(action);
  }

  async deleteProject(uid: string): Promise<boolean> {
    return this.connection.transaction(async () => {
      if (!(await this.connection.get("SELECT uid FROM projects WHERE uid = ? FOR UPDATE", uid)))
        return false;
      for (const statement of PROJECT_DELETION) await this.connection.run(statement, uid);
      return true;
    });
  }

  async getMeta(key: string): Promise<string | undefined> {
    return (await this.connection.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", key))?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.connection.run(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  async close(): Promise<void> {
    await this.cluster.close();
    await this.connection.close();
  }
}
