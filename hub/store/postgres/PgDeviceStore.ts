import type { DeviceStore } from "../HubStore.js";
import { firmwareFilterValue } from "../firmwareVersion.js";
import type { DeviceFilter, DeviceInput, DeviceRecord, Page, PageResult, SignalRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import { int, likeEscape } from "../sqlite/SqliteConnection.js";
import { DEVICE_COLUMNS, DEVICE_PLACES, DEVICE_UPSERT } from "../sqlite/deviceSql.js";
import {
  changedRecord,
  device,
  deviceValues,
  newDevice,
  type DeviceRow,
} from "../sqlite/SqliteDeviceStore.js";
import { storedJson } from "../sqlite/storedJson.js";
import type { JsonObject } from "../../../core/json.js";
import type { PgConnection } from "./PgConnection.js";

const SELECT_DEVICE = `SELECT d.*,
  coalesce((SELECT json_agg(fleet_uid ORDER BY fleet_uid) FROM device_fleets WHERE device_uid = d.uid)::text, '[]') AS fleet_list,
  coalesce((SELECT json_agg(tag ORDER BY tag) FROM device_tags WHERE device_uid = d.uid)::text, '[]') AS tag_list
  FROM devices d`;

/** Devices with their tags, fleet memberships and signals, on PostgreSQL. */
export class PgDeviceStore implements DeviceStore {
  constructor(private readonly sql: PgConnection) {}

  /** Rewrites the stored document of a device after any change to it or its memberships. */
  async #refresh(uid: string): Promise<DeviceRecord | undefined> {
    const row = await this.sql.get<DeviceRow>(`${SELECT_DEVICE} WHERE d.uid = ?`, uid);
    if (!row) return undefined;
    const record = device(row);
    await this.sql.run("UPDATE devices SET doc = ? WHERE uid = ?", JSON.stringify(record), uid);
    return record;
  }

  /** Rewrites the documents of devices whose fleet memberships changed elsewhere (fleet updates). */
  async refreshDevices(uids: Iterable<string>): Promise<void> {
    for (const uid of uids) await this.#refresh(uid);
  }

  async #get(uid: string, lock = false): Promise<DeviceRecord | undefined> {
    const row = await this.sql.get<{ doc: string }>(
      `SELECT doc FROM devices WHERE uid = ?${lock ? " FOR UPDATE" : ""}`,
      uid,
    );
    return row && (JSON.parse(row.doc) as DeviceRecord);
  }

  // The caller's `read` is not taken: the row is read again, locked, as several hub processes may
  // write the same device and the merge must be over what the row holds when it is written.
  async putDevice(input: DeviceInput): Promise<DeviceRecord> {
    return this.sql.atomic(async () => {
      const existing = await this.#get(input.uid, true);
      if (existing && existing.projectUid !== input.projectUid) {
        throw new StoreError("conflict", `device ${input.uid} belongs to another project`);
      }
      const base = existing ?? newDevice(input);
      const next = changedRecord(base, input);
      await this.sql.run(
        `INSERT INTO devices (${DEVICE_COLUMNS}) VALUES (${DEVICE_PLACES}) ${DEVICE_UPSERT}`,
        ...deviceValues(next),
      );
      if (input.tags) {
        await this.sql.run("DELETE FROM device_tags WHERE device_uid = ?", next.uid);
        for (const tag of new Set(input.tags)) {
          await this.sql.run("INSERT INTO device_tags (device_uid, tag) VALUES (?, ?)", next.uid, tag);
        }
      }
      if (input.fleetUids) {
        await this.sql.run("DELETE FROM device_fleets WHERE device_uid = ?", next.uid);
        for (const fleet of new Set(input.fleetUids)) {
          await this.#requireFleet(fleet, next.projectUid);
          await this.sql.run(
            "INSERT INTO device_fleets (device_uid, fleet_uid) VALUES (?, ?)",
            next.uid,
            fleet,
          );
        }
      }
      return (await this.#refresh(next.uid))!;
    });
  }

  async #requireFleet(fleetUid: string, projectUid: string): Promise<void> {
    const f = await this.sql.get<{ project_uid: string }>(
      "SELECT project_uid FROM fleets WHERE uid = ?",
      fleetUid,
    );
    if (!f || f.project_uid !== projectUid) {
      throw new StoreError("not-found", `fleet not found in this project: ${fleetUid}`);
    }
  }

  async getDevice(uid: string): Promise<DeviceRecord | undefined> {
    return this.#get(uid);
  }

  async findBySerial(projectUid: string, serialNumber: string): Promise<DeviceRecord[]> {
    const rows = await this.sql.all<DeviceRow>(
      `${SELECT_DEVICE} WHERE d.project_uid = ? AND d.serial_number = ? ORDER BY d.uid`,
      projectUid,
      serialNumber,
    );
    return rows.map(device);
  }

  async listDevices(projectUid: string, filter: DeviceFilter, page: Page): Promise<PageResult<DeviceRecord>> {
    const where: string[] = ["d.project_uid = ?"];
    const params: unknown[] = [projectUid];
    const anyOf = (values: string[] | undefined, clause: string): void => {
      if (!values || values.length === 0) return;
      where.push(clause);
      params.push(values);
    };
    anyOf(filter.deviceUids, "d.uid = ANY(?)");
    anyOf(filter.serialNumbers, "d.serial_number = ANY(?)");
    anyOf(filter.productUids, "d.product_uid = ANY(?)");
    anyOf(filter.skus, "d.sku = ANY(?)");
    anyOf(filter.tags, "EXISTS (SELECT 1 FROM device_tags t WHERE t.device_uid = d.uid AND t.tag = ANY(?))");
    anyOf(
      filter.fleetUids,
      "EXISTS (SELECT 1 FROM device_fleets f WHERE f.device_uid = d.uid AND f.fleet_uid = ANY(?))",
    );
    if (filter.moduleFirmware && filter.moduleFirmware.length > 0) {
      const terms: string[] = [];
      for (const value of filter.moduleFirmware) {
        const numeric = firmwareFilterValue(value);
        if (numeric === null) continue;
        terms.push("d.firmware_module_version = ? OR d.firmware_module_version LIKE ? ESCAPE '\\'");
        params.push(numeric, `${likeEscape(numeric)}.%`);
      }
      where.push(terms.length > 0 ? `(${terms.join(" OR ")})` : "false");
    }
    if (filter.hostFirmware && filter.hostFirmware.length > 0) {
      where.push(`(${filter.hostFirmware.map(() => "d.firmware_host LIKE ? ESCAPE '\\'").join(" OR ")})`);
      params.push(...filter.hostFirmware.map((v) => `%${likeEscape(v)}%`));
    }
    if (filter.locations && filter.locations.length > 0) {
      where.push(`(${filter.locations.map(() => "d.location_text LIKE ? ESCAPE '\\'").join(" OR ")})`);
      params.push(...filter.locations.map((v) => `%${likeEscape(v.toLowerCase())}%`));
    }
    const rows = await this.sql.all<{ doc: string }>(
      `SELECT d.doc FROM devices d WHERE ${where.join(" AND ")} ORDER BY d.uid LIMIT ? OFFSET ?`,
      ...params,
      page.limit + 1,
      page.offset,
    );
    return {
      items: rows.slice(0, page.limit).map((r) => JSON.parse(r.doc) as DeviceRecord),
      hasMore: rows.length > page.limit,
    };
  }

  async countDevices(projectUid: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM devices WHERE project_uid = ?",
      projectUid,
    );
    return row!.n;
  }

  async deleteDevice(uid: string, purge: boolean): Promise<void> {
    await this.sql.atomic(async () => {
      const found = await this.#get(uid, true);
      if (!found) return;
      await this.sql.run(
        "DELETE FROM env_vars WHERE scope IN ('device', 'device_default') AND owner_uid = ?",
        uid,
      );
      await this.sql.run("DELETE FROM notefiles WHERE device_uid = ?", uid);
      if (purge) {
        // Telemetry is the project's: the same UID may have left history in another project.
        for (const table of ["events", "sessions", "health_log"]) {
          await this.sql.run(
            `DELETE FROM ${table} WHERE project_uid = ? AND device_uid = ?`,
            found.projectUid,
            uid,
          );
        }
      }
      // Tags, fleet memberships and signals cascade.
      await this.sql.run("DELETE FROM devices WHERE uid = ?", uid);
    });
  }

  async setDisabled(uid: string, disabled: boolean): Promise<void> {
    await this.sql.atomic(async () => {
      await this.sql.run("UPDATE devices SET disabled = ? WHERE uid = ?", int(disabled), uid);
      await this.#refresh(uid);
    });
  }

  async setConnectivityAssurance(uid: string, enabled: boolean): Promise<void> {
    await this.sql.atomic(async () => {
      await this.sql.run("UPDATE devices SET connectivity_assurance = ? WHERE uid = ?", int(enabled), uid);
      await this.#refresh(uid);
    });
  }

  async #changeFleets(uid: string, fleetUids: string[], add: boolean): Promise<string[]> {
    return this.sql.atomic(async () => {
      const d = await this.#get(uid, true);
      if (!d) throw new StoreError("not-found", `device not found: ${uid}`);
      for (const fleet of fleetUids) {
        await this.#requireFleet(fleet, d.projectUid);
        await this.sql.run(
          add
            ? "INSERT INTO device_fleets (device_uid, fleet_uid) VALUES (?, ?) ON CONFLICT DO NOTHING"
            : "DELETE FROM device_fleets WHERE device_uid = ? AND fleet_uid = ?",
          uid,
          fleet,
        );
      }
      return (await this.#refresh(uid))!.fleetUids;
    });
  }

  async addToFleets(uid: string, fleetUids: string[]): Promise<string[]> {
    return this.#changeFleets(uid, fleetUids, true);
  }

  async removeFromFleets(uid: string, fleetUids: string[]): Promise<string[]> {
    return this.#changeFleets(uid, fleetUids, false);
  }

  async listPublicKeys(projectUid: string, page: Page): Promise<PageResult<{ uid: string; key: string }>> {
    const rows = await this.sql.all<{ uid: string; public_key: string }>(
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
    const row = await this.sql.get<{ seq: number }>(
      "INSERT INTO signals (device_uid, body, created) VALUES (?, ?, ?) RETURNING seq",
      deviceUid,
      JSON.stringify(body),
      now,
    );
    return { seq: row!.seq, deviceUid, body, created: now };
  }

  async pendingSignals(deviceUid: string): Promise<SignalRecord[]> {
    const rows = await this.sql.all<{ seq: number; body: string; created: number }>(
      "SELECT seq, body, created FROM signals WHERE device_uid = ? ORDER BY seq",
      deviceUid,
    );
    return rows.map((r) => ({ seq: r.seq, deviceUid, body: storedJson(r.body), created: r.created }));
  }

  async acknowledgeSignals(deviceUid: string, throughSeq: number): Promise<void> {
    await this.sql.run("DELETE FROM signals WHERE device_uid = ? AND seq <= ?", deviceUid, throughSeq);
  }

  async disconnectAll(): Promise<number> {
    return this.sql.atomic(async () => {
      const rows = await this.sql.all<{ uid: string }>(
        "UPDATE devices SET connected = 0 WHERE connected = 1 RETURNING uid",
      );
      for (const { uid } of rows) await this.#refresh(uid);
      return rows.length;
    });
  }

  async trackerSession(deviceUid: string): Promise<string | undefined> {
    const row = await this.sql.get<{ tracker_session: string | null }>(
      "SELECT tracker_session FROM devices WHERE uid = ?",
      deviceUid,
    );
    return row?.tracker_session ?? undefined;
  }

  async setTrackerSession(deviceUid: string, session: string): Promise<void> {
    await this.sql.run("UPDATE devices SET tracker_session = ? WHERE uid = ?", session, deviceUid);
  }
}
