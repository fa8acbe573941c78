import type { DfuRequestRecord, FirmwareRecord, FirmwareStore, FirmwareType } from "../FirmwareStore.js";
import { StoreError } from "../StoreError.js";
import { int } from "../sqlite/SqliteConnection.js";
import {
  FIRMWARE_CHUNK_BYTES,
  IMAGE_COLUMNS,
  image,
  request,
  type ImageRow,
  type RequestRow,
} from "../sqlite/SqliteFirmwareStore.js";
import type { PgConnection } from "./PgConnection.js";

const bytes = (data: Uint8Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** Firmware images (in chunks beside their records) and DFU requests, on PostgreSQL. */
export class PgFirmwareStore implements FirmwareStore {
  constructor(private readonly sql: PgConnection) {}

  async putContent(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    content: Uint8Array,
  ): Promise<void> {
    await this.sql.atomic(async () => {
      await this.sql.run(
        "DELETE FROM firmware_chunks WHERE project_uid = ? AND type = ? AND filename = ?",
        projectUid,
        type,
        filename,
      );
      for (let at = 0, seq = 0; at < content.length; at += FIRMWARE_CHUNK_BYTES, seq++) {
        await this.sql.run(
          "INSERT INTO firmware_chunks (project_uid, type, filename, seq, data) VALUES (?, ?, ?, ?, ?)",
          projectUid,
          type,
          filename,
          seq,
          bytes(content.subarray(at, Math.min(content.length, at + FIRMWARE_CHUNK_BYTES))),
        );
      }
    });
  }

  async putImage(r: FirmwareRecord): Promise<void> {
    const stored = await this.sql.run(
      `INSERT INTO firmware (${IMAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_uid, type, filename) DO NOTHING`,
      r.projectUid,
      r.type,
      r.filename,
      r.source,
      r.length,
      r.md5,
      r.crc32,
      r.created,
      r.modified,
      r.version,
      r.notes,
      r.info === null ? null : JSON.stringify(r.info),
      r.image === null ? null : JSON.stringify(r.image),
      r.target,
      int(r.published),
      r.createdBy,
    );
    if (stored === 0) throw new StoreError("conflict", `firmware ${r.filename} exists`);
  }

  async getImage(
    projectUid: string,
    type: FirmwareType,
    filename: string,
  ): Promise<FirmwareRecord | undefined> {
    const row = await this.sql.get<ImageRow>(
      `SELECT ${IMAGE_COLUMNS} FROM firmware WHERE project_uid = ? AND type = ? AND filename = ?`,
      projectUid,
      type,
      filename,
    );
    return row && image(row);
  }

  async listImages(projectUid: string, type?: FirmwareType): Promise<FirmwareRecord[]> {
    const rows = await this.sql.all<ImageRow>(
      `SELECT ${IMAGE_COLUMNS} FROM firmware WHERE project_uid = ? AND (type = ? OR ?::text IS NULL)
       ORDER BY created, filename`,
      projectUid,
      type ?? null,
      type ?? null,
    );
    return rows.map(image);
  }

  async readImage(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    offset: number,
    length: number,
  ): Promise<Uint8Array | undefined> {
    const record = await this.getImage(projectUid, type, filename);
    if (!record) return undefined;
    const start = Math.max(0, Math.min(offset, record.length));
    const end = Math.max(start, Math.min(record.length, offset + Math.max(0, length)));
    const out = new Uint8Array(end - start);
    if (end === start) return out;
    const rows = await this.sql.all<{ seq: number; data: Uint8Array }>(
      `SELECT seq, data FROM firmware_chunks WHERE project_uid = ? AND type = ? AND filename = ?
        AND seq BETWEEN ? AND ? ORDER BY seq`,
      projectUid,
      type,
      filename,
      Math.floor(start / FIRMWARE_CHUNK_BYTES),
      Math.floor((end - 1) / FIRMWARE_CHUNK_BYTES),
    );
    for (const row of rows) {
      const base = row.seq * FIRMWARE_CHUNK_BYTES;
      const from = Math.max(start, base);
      const to = Math.min(end, base + row.data.length);
      if (to > from) out.set(row.data.subarray(from - base, to - base), from - start);
    }
    return out;
  }

  async updateImage(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    changes: Partial<Pick<FirmwareRecord, "info" | "notes" | "version" | "modified">>,
  ): Promise<FirmwareRecord | undefined> {
    return this.sql.atomic(async () => {
      const current = await this.getImage(projectUid, type, filename);
      if (!current) return undefined;
      const next = { ...current, ...changes };
      const row = await this.sql.get<ImageRow>(
        `UPDATE firmware SET info = ?, notes = ?, version = ?, modified = ?
          WHERE project_uid = ? AND type = ? AND filename = ? RETURNING ${IMAGE_COLUMNS}`,
        next.info === null ? null : JSON.stringify(next.info),
        next.notes,
        next.version,
        next.modified,
        projectUid,
        type,
        filename,
      );
      return row && image(row);
    });
  }

  async deleteImage(projectUid: string, type: FirmwareType, filename: string): Promise<boolean> {
    return this.sql.atomic(async () => {
      const where = "WHERE project_uid = ? AND type = ? AND filename = ?";
      await this.sql.run(`DELETE FROM firmware_chunks ${where}`, projectUid, type, filename);
      return (await this.sql.run(`DELETE FROM firmware ${where}`, projectUid, type, filename)) > 0;
    });
  }

  async addRequest(r: Omit<DfuRequestRecord, "id">): Promise<DfuRequestRecord> {
    const row = await this.sql.get<{ id: number }>(
      `INSERT INTO dfu_requests (project_uid, device_uid, type, filename, initiated, current_version,
        requested_version, state, updates, source, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      r.projectUid,
      r.deviceUid,
      r.type,
      r.filename,
      r.initiated,
      r.currentVersion,
      r.requestedVersion,
      r.state,
      JSON.stringify(r.updates),
      r.source,
      r.seq,
    );
    return { ...r, id: row!.id };
  }

  async latestRequest(
    projectUid: string,
    deviceUid: string,
    type: FirmwareType,
  ): Promise<DfuRequestRecord | undefined> {
    const row = await this.sql.get<RequestRow>(
      `SELECT * FROM dfu_requests WHERE project_uid = ? AND device_uid = ? AND type = ?
        ORDER BY id DESC LIMIT 1`,
      projectUid,
      deviceUid,
      type,
    );
    return row && request(row);
  }

  async listRequests(projectUid: string, deviceUid: string, type: FirmwareType): Promise<DfuRequestRecord[]> {
    const rows = await this.sql.all<RequestRow>(
      "SELECT * FROM dfu_requests WHERE project_uid = ? AND device_uid = ? AND type = ? ORDER BY id DESC",
      projectUid,
      deviceUid,
      type,
    );
    return rows.map(request);
  }

  async updateRequest(
    id: number,
    changes: Partial<Pick<DfuRequestRecord, "state" | "updates" | "seq">>,
  ): Promise<void> {
    const { state, updates, seq } = changes;
    await this.sql.run(
      `UPDATE dfu_requests SET state = coalesce(?, state), updates = coalesce(?, updates), seq = coalesce(?, seq)
       WHERE id = ?`,
      state ?? null,
      updates === undefined ? null : JSON.stringify(updates),
      seq ?? null,
      id,
    );
  }
}
