import type { HubStore } from "../HubStore.js";
import { SqliteAccountStore } from "./SqliteAccountStore.js";
import { SqliteConnection } from "./SqliteConnection.js";
import { SqliteCredentialStore } from "./SqliteCredentialStore.js";
import { SqliteDescriptionStore } from "./SqliteDescriptionStore.js";
import { SqliteDeviceStore } from "./SqliteDeviceStore.js";
import { SqliteEnvStore } from "./SqliteEnvStore.js";
import { SqliteNotefileStore } from "./SqliteNotefileStore.js";
import { SqliteProjectStore } from "./SqliteProjectStore.js";
import { SqliteTelemetryStore } from "./SqliteTelemetryStore.js";

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

  /** Opens (creating and migrating as needed) the database at `path`, or ":memory:". */
  constructor(path: string) {
    const sql = new SqliteConnection(path);
    this.#connection = sql;
    this.accounts = new SqliteAccountStore(sql);
    this.devices = new SqliteDeviceStore(sql);
    this.projects = new SqliteProjectStore(sql, (uids) => this.devices.refreshDevices(uids));
    this.env = new SqliteEnvStore(sql);
    this.notefiles = new SqliteNotefileStore(sql);
    this.telemetry = new SqliteTelemetryStore(sql);
    this.descriptions = new SqliteDescriptionStore(sql);
    this.credentials = new SqliteCredentialStore(sql);
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.#connection.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", key)?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.#connection.run(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  async close(): Promise<void> {
    this.#connection.close();
  }
}
