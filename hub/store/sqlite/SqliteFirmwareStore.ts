import type { JsonObject } from "../../../core/json.js";
import type {
  DfuHistoryNode,
  DfuRequestRecord,
  DfuRequestState,
  FirmwareRecord,
  FirmwareStore,
  FirmwareType,
} from "../FirmwareStore.js";
import { StoreError } from "../StoreError.js";
import { bool, int, type SqliteConnection } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

/** Bytes per stored chunk: a ranged read touches one or two rows, never the whole image. */
export const FIRMWARE_CHUNK_BYTES = 256 * 1024;

export interface ImageRow {
  project_uid: string;
  type: string;
  filename: string;
  source: string;
  length: number;
  md5: string;
  crc32: number;
  created: number;
  modified: number;
  version: string | null;
  notes: string | null;
  info: string | null;
  image: string | null;
  target: string | null;
  published: number;
  created_by: string | null;
}

export interface RequestRow {
  id: number;
  project_uid: string;
  device_uid: string;
  type: string;
  filename: string;
  initiated: number;
  current_version: string | null;
  requested_version: string | null;
  state: string;
  updates: string;
  source: string;
  seq: number;
}

const object = (text: string | null): JsonObject | null => (text === null ? null : storedJson(text));

export const image = (r: ImageRow): FirmwareRecord => ({
  projectUid: r.project_uid,
  type: r.type as FirmwareType,
  filename: r.filename,
  source: r.source,
  length: r.length,
  md5: r.md5,
  crc32: r.crc32,
  created: r.created,
  modified: r.modified,
  version: r.version,
  notes: r.notes,
  info: object(r.info),
  image: object(r.image),
  target: r.target,
  published: bool(r.published),
  createdBy: r.created_by,
});

function history(text: string): DfuHistoryNode[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as DfuHistoryNode[]) : [];
  } catch {
    return [];
  }
}

export const request = (r: RequestRow): DfuRequestRecord => ({
  id: r.id,
  projectUid: r.project_uid,
  deviceUid: r.device_uid,
  type: r.type as FirmwareType,
  filename: r.filename,
  initiated: r.initiated,
  currentVersion: r.current_version,
  requestedVersion: r.requested_version,
  state: r.state as DfuRequestState,
  updates: history(r.updates),
  source: r.source === "env" ? "env" : "api",
  seq: r.seq,
});

export const IMAGE_COLUMNS =
  "project_uid, type, filename, source, length, md5, crc32, created, modified, version, notes, info, image, target, published, created_by";

export class SqliteFirmwareStore implements FirmwareStore {
  constructor(private readonly sql: SqliteConnection) {}

  async putContent(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    content: Uint8Array,
  ): Promise<void> {
    this.sql.transaction(() => {
      this.sql.run(
        "DELETE FROM firmware_chunks WHERE project_uid = ? AND type = ? AND filename = ?",
        projectUid,
        type,
        filename,
      );
      for (let at = 0, seq = 0; at < content.length; at += FIRMWARE_CHUNK_BYTES, seq++) {
        this.sql.run(
          "INSERT INTO firmware_chunks (project_uid, type, filename, seq, data) VALUES (?, ?, ?, ?, ?)",
          projectUid,
          type,
          filename,
          seq,
          content.subarray(at, Math.min(content.length, at + FIRMWARE_CHUNK_BYTES)),
        );
      }
    });
  }

  async putImage(r: FirmwareRecord): Promise<void> {
    this.sql.transaction(() => {
      if (this.#image(r.projectUid, r.type, r.filename)) {
        throw new StoreError("conflict", `firmware ${r.filename} exists`);
      }
      this.sql.run(
        `INSERT INTO firmware (${IMAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    });
  }

  #image(projectUid: string, type: FirmwareType, filename: string): FirmwareRecord | undefined {
    const row = this.sql.get<ImageRow>(
      `SELECT ${IMAGE_COLUMNS} FROM firmware WHERE project_uid = ? AND type = ? AND filename = ?`,
      projectUid,
      type,
      filename,
    );
    return row && image(row);
  }

  async getImage(
    projectUid: string,
    type: FirmwareType,
    filename: string,
  ): Promise<FirmwareRecord | undefined> {
    return this.#image(projectUid, type, filename);
  }

  async listImages(projectUid: string, type?: FirmwareType): Promise<FirmwareRecord[]> {
    const rows =
      type === undefined
        ? this.sql.all<ImageRow>(
            `SELECT ${IMAGE_COLUMNS} FROM firmware WHERE project_uid = ? ORDER BY created, filename`,
            projectUid,
          )
        : this.sql.all<ImageRow>(
            `SELECT ${IMAGE_COLUMNS} FROM firmware WHERE project_uid = ? AND type = ? ORDER BY created, filename`,
            projectUid,
            type,
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
    const record = this.#image(projectUid, type, filename);
    if (!record) return undefined;
    const start = Math.max(0, Math.min(offset, record.length));
    const end = Math.max(start, Math.min(record.length, offset + Math.max(0, length)));
    const out = new Uint8Array(end - start);
    if (end === start) return out;
    const first = Math.floor(start / FIRMWARE_CHUNK_BYTES);
    const last = Math.floor((end - 1) / FIRMWARE_CHUNK_BYTES);
    const rows = this.sql.all<{ seq: number; data: Uint8Array }>(
      `SELECT seq, data FROM firmware_chunks WHERE project_uid = ? AND type = ? AND filename = ?
        AND seq BETWEEN ? AND ? ORDER BY seq`,
      projectUid,
      type,
      filename,
      first,
      last,
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
    return this.sql.transaction(() => {
      const current = this.#image(projectUid, type, filename);
      if (!current) return undefined;
      const next = { ...current, ...changes };
      this.sql.run(
        `UPDATE firmware SET info = ?, notes = ?, version = ?, modified = ?
          WHERE project_uid = ? AND type = ? AND filename = ?`,
        next.info === null ? null : JSON.stringify(next.info),
        next.notes,
        next.version,
        next.modified,
        projectUid,
        type,
        filename,
      );
      return this.#image(projectUid, type, filename);
    });
  }

  async deleteImage(projectUid: string, type: FirmwareType, filename: string): Promise<boolean> {
    return this.sql.transaction(() => {
      const where = "WHERE project_uid = ? AND type = ? AND filename = ?";
      this.sql.run(`DELETE FROM firmware_chunks ${where}`, projectUid, type, filename);
      return this.sql.run(`DELETE FROM firmware ${where}`, projectUid, type, filename).changes > 0;
    });
  }

  async addRequest(r: Omit<DfuRequestRecord, "id">): Promise<DfuRequestRecord> {
    const result = this.sql.run(
      `INSERT INTO dfu_requests (project_uid, device_uid, type, filename, initiated, current_version,
        requested_version, state, updates, source, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    return { ...r, id: Number(result.lastInsertRowid) };
  }

  async latestRequest(
    projectUid: string,
    deviceUid: string,
    type: FirmwareType,
  ): Promise<DfuRequestRecord | undefined> {
    // Read by every session's open (is there firmware to offer?).
    const row = this.sql.cachedGet<RequestRow>(
      `SELECT * FROM dfu_requests WHERE project_uid = ? AND device_uid = ? AND type = ?
        ORDER BY id DESC LIMIT 1`,
      projectUid,
      deviceUid,
      type,
    );
    return row && request(row);
  }

  async listRequests(projectUid: string, deviceUid: string, type: FirmwareType): Promise<DfuRequestRecord[]> {
    return this.sql
      .all<RequestRow>(
        `SELECT * FROM dfu_requests WHERE project_uid = ? AND device_uid = ? AND type = ? ORDER BY id DESC`,
        projectUid,
        deviceUid,
        type,
      )
      .map(request);
  }

  async updateRequest(
    id: number,
    changes: Partial<Pick<DfuRequestRecord, "state" | "updates" | "seq">>,
  ): Promise<void> {
    this.sql.transaction(() => {
      const { state, updates, seq } = changes;
      if (state !== undefined) this.sql.run("UPDATE dfu_requests SET state = ? WHERE id = ?", state, id);
      if (updates !== undefined)
        this.sql.run("UPDATE dfu_requests SET updates = ? WHERE id = ?", JSON.stringify(updates), id);
      if (seq !== undefined) this.sql.run("UPDATE dfu_requests SET seq = ? WHERE id = ?", seq, id);
    });
  }
}
