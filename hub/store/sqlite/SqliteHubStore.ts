import type { HubStore, TransactionOptions } from "../HubStore.js";
import { PROJECT_DELETION } from "../projectDeletion.js";
import { IntegrationSqlStore } from "../IntegrationSqlStore.js";
import type { SqlPort } from "../SqlPort.js";
import { SqliteAccountStore } from "./SqliteAccountStore.js";
import type { GroupCommitOptions } from "./GroupCommit.js";
import { SqliteConnection, type SqliteConnectionOptions } from "./SqliteConnection.js";
import { SqliteCredentialStore } from "./SqliteCredentialStore.js";
import { SqliteDescriptionStore } from "./SqliteDescriptionStore.js";
import { SqliteDeviceStore } from "./SqliteDeviceStore.js";
import { SqliteEnvStore } from "./SqliteEnvStore.js";
import { SqliteFirmwareStore } from "./SqliteFirmwareStore.js";
import { SqliteNotefileStore } from "./SqliteNotefileStore.js";
import { SqliteProjectStore } from "./SqliteProjectStore.js";
import { SqliteRouteStore } from "./SqliteRouteStore.js";
import { SqliteTelemetryStore } from "./SqliteTelemetryStore.js";
import { ofProject } from "./telemetrySql.js";
import type { TransactionGate } from "./TransactionGate.js";
import { SqlJobStore, SqlMonitorStore } from "../AutomationSql.js";

/**
 * `store` with every method passed through the gate: it waits while a transaction it is not part
 * of is open. (The methods do all their SQL synchronously, before they return.) The result
 * inherits from `store`, so its fields stay readable.
 */
function gated<T extends object>(store: T, gate: TransactionGate): T {
  const out = Object.create(store) as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
    const method = (store as Record<string, unknown>)[name];
    if (name === "constructor" || typeof method !== "function") continue;
    out[name] = (...args: unknown[]) => gate.call(() => method.apply(store, args) as Promise<unknown>);
  }
  return out as T;
}

/** SQLite's synchronous calls as the asynchronous port the shared statements use. */
function sqlitePort(sql: SqliteConnection): SqlPort {
  return {
    get: async <T>(text: string, ...params: unknown[]) => sql.get<T>(text, ...params),
    all: async <T>(text: string, ...params: unknown[]) => sql.all<T>(text, ...params),
    run: async (text: string, ...params: unknown[]) => sql.run(text, ...params).changes,
    cachedGet: async <T>(text: string, ...params: unknown[]) => sql.cachedGet<T>(text, ...params),
    cachedAll: async <T>(text: string, ...params: unknown[]) => sql.cachedAll<T>(text, ...params),
  };
}

/**
 * PROJECT_DELETION on SQLite: the events by their project's key (their indexes lead with it, not
 * with project_uid), and the key after them.
 */
export const SQLITE_PROJECT_DELETION = PROJECT_DELETION.flatMap((statement) =>
  statement === "DELETE FROM events WHERE project_uid = ?"
    ? [`DELETE FROM events WHERE ${ofProject("events")}`, "DELETE FROM project_keys WHERE uid = ?"]
    : [statement],
);

/** The embedded hub store: one SQLite file (WAL) holding every record of the hub. */
export class SqliteHubStore implements HubStore {
  readonly #connection: SqliteConnection;
  readonly accounts: SqliteAccountStore;
  readonly projects: SqliteProjectStore;
  readonly devices: SqliteDeviceStore;
  readonly env: SqliteEnvStore;
  readonly notefiles: SqliteNotefileStore;
  readonly telemetry: SqliteTelemetryStore;
  readonly descriptions: SqliteDescriptionStore;
  readonly credentials: SqliteCredentialStore;
  readonly routes: SqliteRouteStore;
  readonly firmware: SqliteFirmwareStore;
  readonly monitors: SqlMonitorStore;
  readonly jobs: SqlJobStore;
  readonly integrations: IntegrationSqlStore;

  /**
   * Opens (creating and migrating as needed) the database at `path`, or ":memory:". A hub serving
   * devices gives `{ checkpointer: true }`: its commits then only append to the log, which a
   * worker thread copies into the database (see `SqliteConnection`).
   */
  constructor(path: string, options: SqliteConnectionOptions = {}) {
    const sql = new SqliteConnection(path, options);
    this.#connection = sql;
    const gate = sql.gate;
    const devices = new SqliteDeviceStore(sql);
    this.accounts = gated(new SqliteAccountStore(sql), gate);
    this.devices = gated(devices, gate);
    this.projects = gated(new SqliteProjectStore(sql, (uids) => devices.refreshDevices(uids)), gate);
    this.env = gated(new SqliteEnvStore(sql), gate);
    this.notefiles = gated(new SqliteNotefileStore(sql), gate);
    this.telemetry = gated(new SqliteTelemetryStore(sql), gate);
    this.descriptions = gated(new SqliteDescriptionStore(sql), gate);
    this.credentials = gated(new SqliteCredentialStore(sql), gate);
    this.routes = gated(new SqliteRouteStore(sql), gate);
    this.firmware = gated(new SqliteFirmwareStore(sql), gate);
    const port = sqlitePort(sql);
    this.monitors = gated(new SqlMonitorStore(port), gate);
    this.jobs = gated(new SqlJobStore(port), gate);
    this.integrations = gated(new IntegrationSqlStore(port), gate);
  }

  transaction<T>(work: () => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.#connection.gate.transaction(work, options);
  }

  afterCommit(action: () => void): void {
    this.#connection.gate.afterCommit(action);
  }

  async deleteProject(uid: string): Promise<boolean> {
    const sql = this.#connection;
    return sql.gate.call(async () =>
      sql.allOrNothing(() => {
        if (!sql.get("SELECT uid FROM projects WHERE uid = ?", uid)) return false;
        for (const statement of SQLITE_PROJECT_DELETION) sql.run(statement, uid);
        return true;
      }),
    );
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.#connection.gate.call(
      async () => this.#connection.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", key)?.value,
    );
  }

  async setMeta(key: string, value: string): Promise<void> {
    return this.#connection.gate.call(async () => {
      this.#connection.run(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        key,
        value,
      );
    });
  }

  /**
   * Commits the transactions of each window (of `options.clock` time, or of one event-loop turn)
   * together (see `SqliteConnection.groupCommits`); undefined: each on its own.
   */
  groupCommits(options: GroupCommitOptions | undefined): void {
    this.#connection.groupCommits(options);
  }

  /** Whether a worker thread checkpoints the database now (`{ checkpointer: true }`). */
  get checkpointsInBackground(): boolean {
    return this.#connection.checkpointsInBackground;
  }

  /** Closes the database once any open transaction has ended (the checkpointer's last copy first). */
  async close(): Promise<void> {
    await this.#connection.stopCheckpointer();
    return this.#connection.gate.call(async () => this.#connection.close());
  }
}
