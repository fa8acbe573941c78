import type { DeviceStore } from "../HubStore.js";
import { firmwareFilterValue, numericFirmwareVersion } from "../firmwareVersion.js";
import type {
  DeviceDetails,
  DeviceFilter,
  DeviceInput,
  DeviceRecord,
  Page,
  PageResult,
  SignalRecord,
} from "../records.js";
import { StoreError } from "../StoreError.js";
import { bool, int, likeEscape, parseJson, type SqliteConnection } from "./SqliteConnection.js";
import type { JsonObject } from "../../../core/json.js";
import { storedJson } from "./storedJson.js";
import { readsBackAs } from "./deviceReadBack.js";
import { ofProject } from "./telemetrySql.js";
import {
  DEVICE_COLUMNS,
  DEVICE_PLACES,
  DEVICE_UPSERT,
  UPDATE_IF_UNCHANGED,
  UPDATE_IF_UNCHANGED_SAME_SERIAL,
} from "./deviceSql.js";

export interface DeviceRow {
  uid: string;
  project_uid: string;
  product_uid: string;
  serial_number: string | null;
  provisioned: number;
  last_activity: number | null;
  disabled: number;
  sku: string | null;
  firmware_module: string | null;
  firmware_host: string | null;
  voltage: number;
  temperature: number;
  details: string;
  public_key: string | null;
  connected: number;
  connectivity_assurance: number;
  fleet_list: string;
  tag_list: string;
}

const SELECT_DEVICE = `SELECT d.*,
  (SELECT json_group_array(fleet_uid) FROM (SELECT fleet_uid FROM device_fleets WHERE device_uid = d.uid ORDER BY fleet_uid)) AS fleet_list,
  (SELECT json_group_array(tag) FROM (SELECT tag FROM device_tags WHERE device_uid = d.uid ORDER BY tag)) AS tag_list
  FROM devices d`;

export const device = (r: DeviceRow): DeviceRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  productUid: r.product_uid,
  serialNumber: r.serial_number,
  provisioned: r.provisioned,
  lastActivity: r.last_activity,
  disabled: bool(r.disabled),
  sku: r.sku,
  firmwareModule: r.firmware_module,
  firmwareHost: r.firmware_host,
  voltage: r.voltage,
  temperature: r.temperature,
  tags: parseJson<string[]>(r.tag_list, []),
  fleetUids: parseJson<string[]>(r.fleet_list, []),
  details: parseJson<DeviceDetails>(r.details, {}),
  publicKey: r.public_key,
  connected: bool(r.connected),
  connectivityAssurance: bool(r.connectivity_assurance),
});

/** The record of a device not stored before, from what `putDevice` was given. */
export const newDevice = (input: DeviceInput): DeviceRecord => ({
  uid: input.uid,
  projectUid: input.projectUid,
  productUid: input.productUid,
  serialNumber: null,
  provisioned: input.provisioned ?? 0,
  lastActivity: null,
  disabled: false,
  sku: null,
  firmwareModule: null,
  firmwareHost: null,
  voltage: 0,
  temperature: 0,
  tags: [],
  fleetUids: [],
  details: {},
  publicKey: null,
  connected: false,
  connectivityAssurance: false,
});

/** A member of `input` that is set, else the record's. */
const or = <T>(value: T | undefined, held: T): T => (value === undefined ? held : value);

/**
 * `base` changed by the members of `input` that are set, its fields in the order `device` gives
 * them (both stores' device writes). Built member by member: a spread of the record followed by
 * more members makes V8 (Node 20) build a new hidden class at every call, some 15-25 µs a write.
 */
export function changedRecord(base: DeviceRecord, input: DeviceInput): DeviceRecord {
  return {
    uid: input.uid,
    projectUid: input.projectUid,
    productUid: input.productUid,
    serialNumber: or(input.serialNumber, base.serialNumber),
    provisioned: or(input.provisioned, base.provisioned),
    lastActivity: or(input.lastActivity, base.lastActivity),
    disabled: or(input.disabled, base.disabled),
    sku: or(input.sku, base.sku),
    firmwareModule: or(input.firmwareModule, base.firmwareModule),
    firmwareHost: or(input.firmwareHost, base.firmwareHost),
    voltage: or(input.voltage, base.voltage),
    temperature: or(input.temperature, base.temperature),
    tags: or(input.tags, base.tags),
    fleetUids: or(input.fleetUids, base.fleetUids),
    details: input.details ? Object.assign({}, base.details, input.details) : base.details,
    publicKey: or(input.publicKey, base.publicKey),
    connected: or(input.connected, base.connected),
    connectivityAssurance: or(input.connectivityAssurance, base.connectivityAssurance),
  };
}

/** Lower-cased names and countries of every known location, for the `location` filter. */
export function locationText(details: DeviceDetails): string {
  const parts: string[] = [];
  for (const l of [details.gpsLocation, details.towerLocation, details.triangulatedLocation]) {
    if (l) parts.push(l.name, l.country);
  }
  return parts.join("\n").toLowerCase();
}

/**
 * Parsed documents kept by device, with the text they were parsed from: an unchanged device is not
 * parsed again, and a changed one replaces its entry (a fleet's devices change at every session).
 */
/** A record's values for DEVICE_COLUMNS. */
export function deviceValues(next: DeviceRecord): unknown[] {
  return [
    next.uid,
    next.projectUid,
    next.productUid,
    next.serialNumber,
    next.provisioned,
    next.lastActivity,
    int(next.disabled),
    next.sku,
    next.firmwareModule,
    numericFirmwareVersion(next.firmwareModule),
    next.firmwareHost,
    next.voltage,
    next.temperature,
    JSON.stringify(next.details),
    locationText(next.details),
    next.publicKey,
    int(next.connected),
    int(next.connectivityAssurance),
  ];
}

const PARSED_CACHE = 20_000;

/** Device-list pages kept until the data changes (listing is the hub's hottest read). */
const PAGE_CACHE = 256;

export class SqliteDeviceStore implements DeviceStore {
  readonly #parsed = new Map<string, { readonly doc: string; readonly record: DeviceRecord }>();
  readonly #pages = new Map<string, PageResult<DeviceRecord>>();
  #pagesVersion = "";

  constructor(private readonly sql: SqliteConnection) {}

  /**
   * The record of a stored document. Shared between callers: never mutate it. `built`: the record
   * `doc` was just written from, taken as is when parsing `doc` would give it back member for
   * member (`readsBackAs`): a session's write changes the document every time, and parsing it again
   * cost more than the statement.
   */
  #parse(uid: string, doc: string, built?: DeviceRecord): DeviceRecord {
    const kept = this.#parsed.get(uid);
    if (kept?.doc === doc) return kept.record;
    const record = Object.freeze(
      built !== undefined && readsBackAs(built) ? built : (JSON.parse(doc) as DeviceRecord),
    );
    if (!kept && this.#parsed.size >= PARSED_CACHE) this.#parsed.delete(this.#parsed.keys().next().value!);
    this.#parsed.set(uid, { doc, record });
    return record;
  }

  /** The record rebuilt from the columns and membership tables (the source of `doc`). */
  #build(uid: string): DeviceRecord | undefined {
    const row = this.sql.get<DeviceRow>(`${SELECT_DEVICE} WHERE d.uid = ?`, uid);
    return row && device(row);
  }

  /** Rewrites the stored document of a device after any change to it or its memberships. */
  #refresh(uid: string): DeviceRecord | undefined {
    const record = this.#build(uid);
    if (record) this.sql.run("UPDATE devices SET doc = ? WHERE uid = ?", JSON.stringify(record), uid);
    return record;
  }

  /**
   * The device's stored document and tracker session, as the connection last read them unless
   * the data changed since: an open reads both, the second answered without a statement.
   */
  #row(uid: string): { doc: string; tracker_session: string | null } | undefined {
    return this.sql.cachedGet("SELECT doc, tracker_session FROM devices WHERE uid = ?", uid);
  }

  #get(uid: string): DeviceRecord | undefined {
    const row = this.#row(uid);
    return row && this.#parse(uid, row.doc);
  }

  async putDevice(input: DeviceInput, read?: DeviceRecord): Promise<DeviceRecord> {
    // A known device whose memberships stay as they are (a session's report, its end) is one
    // statement: its row and its document written together from the document it had. The record
    // the caller read is that document when it is the one this store parsed last for the device
    // and the row still holds that text (the write's condition): no read then.
    if (!input.tags && !input.fleetUids) {
      const kept = read && this.#parsed.get(input.uid);
      if (kept?.record === read && kept) {
        const written = this.#write(input, read, read, kept.doc);
        if (written) return written;
      }
      const existing = this.#get(input.uid);
      if (existing) return this.#write(input, existing)!;
    }
    return this.sql.transaction(() => {
      const existing = this.#get(input.uid);
      this.#write(input, existing ?? newDevice(input), existing);
      if (input.tags) {
        this.sql.run("DELETE FROM device_tags WHERE device_uid = ?", input.uid);
        for (const tag of new Set(input.tags)) {
          this.sql.run("INSERT INTO device_tags (device_uid, tag) VALUES (?, ?)", input.uid, tag);
        }
      }
      if (input.fleetUids) {
        this.sql.run("DELETE FROM device_fleets WHERE device_uid = ?", input.uid);
        for (const fleet of new Set(input.fleetUids)) {
          this.#requireFleet(fleet, input.projectUid);
          this.sql.run("INSERT INTO device_fleets (device_uid, fleet_uid) VALUES (?, ?)", input.uid, fleet);
        }
      }
      return this.#refresh(input.uid)!;
    });
  }

  /**
   * Writes the device's row as `base` (its record) changed by `input`, and its document with it
   * when `existing` is given as `base` (memberships unchanged; else `#refresh` writes it). The new
   * record, as `getDevice` reads it back. With `unless`, the document `base` was parsed from: the
   * row is written only if it still holds it (undefined when it does not: nothing written).
   */
  #write(
    input: DeviceInput,
    base: DeviceRecord,
    existing: DeviceRecord | undefined = base,
    unless?: string,
  ): DeviceRecord | undefined {
    if (existing && existing.projectUid !== input.projectUid) {
      throw new StoreError("conflict", `device ${input.uid} belongs to another project`);
    }
    const next = changedRecord(base, input);
    const doc = existing === base ? JSON.stringify(next) : null;
    if (unless !== undefined) {
      const [uid, , ...values] = deviceValues(next);
      const sameSerial = next.serialNumber === base.serialNumber;
      if (sameSerial) values.splice(1, 1); // serial_number, third of DEVICE_COLUMNS
      const update = sameSerial ? UPDATE_IF_UNCHANGED_SAME_SERIAL : UPDATE_IF_UNCHANGED;
      if (this.sql.run(update, ...values, doc, uid, unless).changes === 0) return undefined;
      // Its nested members are the parsed base's unless the caller gave details of its own.
      return this.#parse(input.uid, doc!, input.details ? undefined : next);
    }
    this.sql.run(
      `INSERT INTO devices (${DEVICE_COLUMNS}, doc) VALUES (${DEVICE_PLACES}, coalesce(?, '{}'))
       ${DEVICE_UPSERT}, doc = coalesce(?, doc)`,
      ...deviceValues(next),
      doc,
      doc,
    );
    return doc === null ? next : this.#parse(input.uid, doc, input.details ? undefined : next);
  }

  #requireFleet(fleetUid: string, projectUid: string): void {
    const f = this.sql.get<{ project_uid: string }>("SELECT project_uid FROM fleets WHERE uid = ?", fleetUid);
    if (!f || f.project_uid !== projectUid) {
      throw new StoreError("not-found", `fleet not found in this project: ${fleetUid}`);
    }
  }

  async getDevice(uid: string): Promise<DeviceRecord | undefined> {
    return this.#get(uid);
  }

  async findBySerial(projectUid: string, serialNumber: string): Promise<DeviceRecord[]> {
    return this.sql
      .all<DeviceRow>(
        `${SELECT_DEVICE} WHERE d.project_uid = ? AND d.serial_number = ? ORDER BY d.uid`,
        projectUid,
        serialNumber,
      )
      .map(device);
  }

  async listDevices(projectUid: string, filter: DeviceFilter, page: Page): Promise<PageResult<DeviceRecord>> {
    const where: string[] = ["d.project_uid = ?"];
    const params: unknown[] = [projectUid];
    const anyOf = (values: string[] | undefined, clause: (placeholders: string) => string): void => {
      if (!values || values.length === 0) return;
      where.push(clause(values.map(() => "?").join(", ")));
      params.push(...values);
    };
    anyOf(filter.deviceUids, (p) => `d.uid IN (${p})`);
    anyOf(filter.serialNumbers, (p) => `d.serial_number IN (${p})`);
    anyOf(filter.productUids, (p) => `d.product_uid IN (${p})`);
    anyOf(filter.skus, (p) => `d.sku IN (${p})`);
    anyOf(
      filter.tags,
      (p) => `EXISTS (SELECT 1 FROM device_tags t WHERE t.device_uid = d.uid AND t.tag IN (${p}))`,
    );
    anyOf(
      filter.fleetUids,
      (p) => `EXISTS (SELECT 1 FROM device_fleets f WHERE f.device_uid = d.uid AND f.fleet_uid IN (${p}))`,
    );
    if (filter.moduleFirmware && filter.moduleFirmware.length > 0) {
      const terms: string[] = [];
      for (const value of filter.moduleFirmware) {
        const numeric = firmwareFilterValue(value);
        if (numeric === null) continue;
        terms.push("d.firmware_module_version = ? OR d.firmware_module_version LIKE ? ESCAPE '\\'");
        params.push(numeric, `${likeEscape(numeric)}.%`);
      }
      where.push(terms.length > 0 ? `(${terms.join(" OR ")})` : "0");
    }
    if (filter.hostFirmware && filter.hostFirmware.length > 0) {
      where.push(`(${filter.hostFirmware.map(() => "d.firmware_host LIKE ? ESCAPE '\\'").join(" OR ")})`);
      params.push(...filter.hostFirmware.map((v) => `%${likeEscape(v)}%`));
    }
    if (filter.locations && filter.locations.length > 0) {
      where.push(`(${filter.locations.map(() => "d.location_text LIKE ? ESCAPE '\\'").join(" OR ")})`);
      params.push(...filter.locations.map((v) => `%${likeEscape(v.toLowerCase())}%`));
    }
    // The page is found on the (project, uid) index first; only its rows' documents are read.
    const sql = `SELECT uid, doc FROM devices WHERE rowid IN (
         SELECT d.rowid FROM devices d WHERE ${where.join(" AND ")} ORDER BY d.uid LIMIT ? OFFSET ?)
       ORDER BY uid`;
    params.push(page.limit + 1, page.offset);
    const version = this.sql.version();
    if (version !== this.#pagesVersion) {
      this.#pages.clear();
      this.#pagesVersion = version;
    }
    const key = `${sql}\u0000${JSON.stringify(params)}`;
    const cached = this.#pages.get(key);
    if (cached) return cached;
    const rows = this.sql.all<{ uid: string; doc: string }>(sql, ...params);
    const result = {
      items: rows.slice(0, page.limit).map((r) => this.#parse(r.uid, r.doc)),
      hasMore: rows.length > page.limit,
    };
    if (this.#pages.size >= PAGE_CACHE) this.#pages.delete(this.#pages.keys().next().value!);
    this.#pages.set(key, result);
    return result;
  }

  async countDevices(projectUid: string): Promise<number> {
    return this.sql.get<{ n: number }>("SELECT count(*) AS n FROM devices WHERE project_uid = ?", projectUid)!
      .n;
  }

  async deleteDevice(uid: string, purge: boolean): Promise<void> {
    this.sql.transaction(() => {
      const device = this.#get(uid);
      if (!device) return;
      this.sql.run("DELETE FROM env_vars WHERE scope IN ('device', 'device_default') AND owner_uid = ?", uid);
      this.sql.run("DELETE FROM notefiles WHERE device_uid = ?", uid);
      if (purge) {
        // Telemetry is the project's: the same UID may have left history in another project.
        // (The events by their project's key, which their indexes lead with.)
        for (const table of ["events", "sessions", "health_log"]) {
          const project = table === "events" ? ofProject(table) : "project_uid = ?";
          this.sql.run(`DELETE FROM ${table} WHERE ${project} AND device_uid = ?`, device.projectUid, uid);
        }
      }
      // Tags, fleet memberships and signals cascade.
      this.sql.run("DELETE FROM devices WHERE uid = ?", uid);
    });
  }

  async setDisabled(uid: string, disabled: boolean): Promise<void> {
    this.sql.transaction(() => {
      this.sql.run("UPDATE devices SET disabled = ? WHERE uid = ?", int(disabled), uid);
      this.#refresh(uid);
    });
  }

  async setConnectivityAssurance(uid: string, enabled: boolean): Promise<void> {
    this.sql.transaction(() => {
      this.sql.run("UPDATE devices SET connectivity_assurance = ? WHERE uid = ?", int(enabled), uid);
      this.#refresh(uid);
    });
  }

  /** Rewrites the documents of devices whose fleet memberships changed elsewhere (fleet updates). */
  refreshDevices(uids: Iterable<string>): void {
    for (const uid of uids) this.#refresh(uid);
  }

  async addToFleets(uid: string, fleetUids: string[]): Promise<string[]> {
    return this.sql.transaction(() => {
      const d = this.#get(uid);
      if (!d) throw new StoreError("not-found", `device not found: ${uid}`);
      for (const fleet of fleetUids) {
        this.#requireFleet(fleet, d.projectUid);
        this.sql.run("INSERT OR IGNORE INTO device_fleets (device_uid, fleet_uid) VALUES (?, ?)", uid, fleet);
      }
      return this.#refresh(uid)!.fleetUids;
    });
  }

  async removeFromFleets(uid: string, fleetUids: string[]): Promise<string[]> {
    return this.sql.transaction(() => {
      const d = this.#get(uid);
      if (!d) throw new StoreError("not-found", `device not found: ${uid}`);
      for (const fleet of fleetUids) {
        this.#requireFleet(fleet, d.projectUid);
        this.sql.run("DELETE FROM device_fleets WHERE device_uid = ? AND fleet_uid = ?", uid, fleet);
      }
      return this.#refresh(uid)!.fleetUids;
    });
  }

  async listPublicKeys(projectUid: string, page: Page): Promise<PageResult<{ uid: string; key: string }>> {
    const rows = this.sql.all<{ uid: string; public_key: string }>(
      `SELECT uid, public_key FROM devices WHERE project_uid = ? AND public_key IS NOT NULL
       ORDER BY uid LIMIT ? OFFSET ?`,
      projectUid,
      page.limit + 1,
      page.offset,
    );
    return {
      items: rows.slice(0, page.limit).map((r) => ({ uid: r.uid, key: r.public_key })),
      hasMore: rows.length > page.limit,
    };
  }

  async queueSignal(deviceUid: string, body: JsonObject, now: number): Promise<SignalRecord> {
    const result = this.sql.run(
      "INSERT INTO signals (device_uid, body, created) VALUES (?, ?, ?)",
      deviceUid,
      JSON.stringify(body),
      now,
    );
    return { seq: Number(result.lastInsertRowid), deviceUid, body, created: now };
  }

  async pendingSignals(deviceUid: string): Promise<SignalRecord[]> {
    return this.sql
      .all<{ seq: number; body: string; created: number }>(
        "SELECT seq, body, created FROM signals WHERE device_uid = ? ORDER BY seq",
        deviceUid,
      )
      .map((r) => ({ seq: r.seq, deviceUid, body: storedJson(r.body), created: r.created }));
  }

  async acknowledgeSignals(deviceUid: string, throughSeq: number): Promise<void> {
    this.sql.run("DELETE FROM signals WHERE device_uid = ? AND seq <= ?", deviceUid, throughSeq);
  }

  async disconnectAll(): Promise<number> {
    return this.sql.transaction(() => {
      const uids = this.sql
        .all<{ uid: string }>("SELECT uid FROM devices WHERE connected = 1")
        .map((r) => r.uid);
      for (const uid of uids) {
        this.sql.run("UPDATE devices SET connected = 0 WHERE uid = ?", uid);
        this.#refresh(uid);
      }
      return uids.length;
    });
  }

  async trackerSession(deviceUid: string): Promise<string | undefined> {
    return this.#row(deviceUid)?.tracker_session ?? undefined;
  }

  async setTrackerSession(deviceUid: string, session: string): Promise<void> {
    this.sql.run("UPDATE devices SET tracker_session = ? WHERE uid = ?", session, deviceUid);
  }
}
