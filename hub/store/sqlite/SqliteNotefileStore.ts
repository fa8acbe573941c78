import type { ChangesOptions, ChangesResult, NotefileStore } from "../HubStore.js";
import { hubVersion } from "../noteVersions.js";
import type { NotePlace, NoteRecord, NotefileRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import type { JsonObject } from "../../../core/json.js";
import type { NoteRecord as ProtocolNote } from "../../../protocol/NoteRecord.js";
import { HUB_ENDPOINT } from "../../../protocol/NoteRecord.js";
import { SYNC_TRACKER } from "../../../protocol/trackers.js";
import { bool, int, parseJson, type SqliteConnection } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

interface NoteRow {
  note_id: string;
  body: string | null;
  payload: string | null;
  time_sec: number;
  change: number;
  updates: number;
  deleted: number;
  endpoint: string;
  history: string | null;
  conflicts: string | null;
  place: string | null;
  arrived: number;
}

interface NotefileRow {
  device_uid: string;
  file_id: string;
  next_change: number;
  deleted: number;
  created: number;
  modified: number;
  total: number;
}

const note = (r: NoteRow): NoteRecord => ({
  noteId: r.note_id,
  body: r.body === null ? null : storedJson(r.body),
  payload: r.payload,
  timeSec: r.time_sec,
  change: r.change,
  updates: r.updates,
  deleted: bool(r.deleted),
  endpoint: r.endpoint,
  history: r.history === null ? null : parseJson<Record<string, number> | null>(r.history, null),
  conflicts: r.conflicts === null ? null : parseJson<ProtocolNote[] | null>(r.conflicts, null),
  where: r.place === null ? null : parseJson<NotePlace | null>(r.place, null),
  arrived: bool(r.arrived),
});

/**
 * The notes still to reach a tracker (SQL): changed after its position, and for the device's own
 * tracker not a version that came from the device unchanged (no echo).
 */
const pending = (position: string, tracker: string): string =>
  `change > ${position} AND (arrived = 0 OR ${tracker} <> '${SYNC_TRACKER}')`;

const notefile = (r: NotefileRow): NotefileRecord => ({
  deviceUid: r.device_uid,
  fileId: r.file_id,
  nextChange: r.next_change,
  total: r.total,
  created: r.created,
  modified: r.modified,
});

const SELECT_NOTEFILE = `SELECT f.*, (SELECT count(*) FROM notes n WHERE n.device_uid = f.device_uid
  AND n.file_id = f.file_id AND n.deleted = 0) AS total FROM notefiles f`;

const seconds = (ms: number): number => Math.floor(ms / 1000);

export class SqliteNotefileStore implements NotefileStore {
  constructor(private readonly sql: SqliteConnection) {}

  #notefile(deviceUid: string, fileId: string): NotefileRecord | undefined {
    const row = this.sql.get<NotefileRow>(
      `${SELECT_NOTEFILE} WHERE f.device_uid = ? AND f.file_id = ? AND f.deleted = 0`,
      deviceUid,
      fileId,
    );
    return row && notefile(row);
  }

  #requireNotefile(deviceUid: string, fileId: string): NotefileRecord {
    const nf = this.#notefile(deviceUid, fileId);
    if (!nf) {
      throw new StoreError("notefile-noexist", `{notefile-noexist} notefile does not exist: ${fileId}`);
    }
    return nf;
  }

  /** The notebox's own change counter (a notefile's creation or deletion is a notebox change). */
  #nextBoxChange(deviceUid: string): number {
    const row = this.sql.get<{ notebox_next_change: number }>(
      "SELECT notebox_next_change FROM devices WHERE uid = ?",
      deviceUid,
    );
    if (!row) throw new StoreError("not-found", `device not found: ${deviceUid}`);
    this.sql.run("UPDATE devices SET notebox_next_change = notebox_next_change + 1 WHERE uid = ?", deviceUid);
    return row.notebox_next_change;
  }

  #ensureNotefile(deviceUid: string, fileId: string, now: number): void {
    const row = this.sql.get<{ deleted: number }>(
      "SELECT deleted FROM notefiles WHERE device_uid = ? AND file_id = ?",
      deviceUid,
      fileId,
    );
    if (row && !bool(row.deleted)) return;
    const box = this.#nextBoxChange(deviceUid);
    if (row) {
      this.sql.run(
        "UPDATE notefiles SET deleted = 0, box_change = ?, created = ?, modified = ? WHERE device_uid = ? AND file_id = ?",
        box,
        now,
        now,
        deviceUid,
        fileId,
      );
    } else {
      this.sql.run(
        `INSERT INTO notefiles (device_uid, file_id, next_change, deleted, box_change, created, modified)
         VALUES (?, ?, 1, 0, ?, ?, ?)`,
        deviceUid,
        fileId,
        box,
        now,
        now,
      );
    }
  }

  /** Takes the notefile's next change number and marks it modified. */
  #takeChange(deviceUid: string, fileId: string, now: number): number {
    const row = this.sql.get<{ next_change: number }>(
      "SELECT next_change FROM notefiles WHERE device_uid = ? AND file_id = ?",
      deviceUid,
      fileId,
    )!;
    this.sql.run(
      "UPDATE notefiles SET next_change = next_change + 1, modified = ? WHERE device_uid = ? AND file_id = ?",
      now,
      deviceUid,
      fileId,
    );
    return row.next_change;
  }

  #note(deviceUid: string, fileId: string, noteId: string): NoteRecord | undefined {
    const row = this.sql.get<NoteRow>(
      "SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND note_id = ?",
      deviceUid,
      fileId,
      noteId,
    );
    return row && note(row);
  }

  #write(deviceUid: string, fileId: string, n: NoteRecord): void {
    this.sql.run(
      `INSERT INTO notes (device_uid, file_id, note_id, body, payload, time_sec, change, updates, deleted, endpoint,
         history, conflicts, place, arrived)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (device_uid, file_id, note_id) DO UPDATE SET body = excluded.body, payload = excluded.payload,
        time_sec = excluded.time_sec, change = excluded.change, updates = excluded.updates,
        deleted = excluded.deleted, endpoint = excluded.endpoint, history = excluded.history,
        conflicts = excluded.conflicts, place = excluded.place, arrived = excluded.arrived`,
      deviceUid,
      fileId,
      n.noteId,
      n.body === null ? null : JSON.stringify(n.body),
      n.payload,
      n.timeSec,
      n.change,
      n.updates,
      int(n.deleted),
      n.endpoint,
      n.history === null ? null : JSON.stringify(n.history),
      n.conflicts === null ? null : JSON.stringify(n.conflicts),
      n.where === null ? null : JSON.stringify(n.where),
      int(n.arrived),
    );
  }

  async listNotefiles(deviceUid: string): Promise<NotefileRecord[]> {
    return this.sql
      .all<NotefileRow>(
        `${SELECT_NOTEFILE} WHERE f.device_uid = ? AND f.deleted = 0 ORDER BY f.file_id`,
        deviceUid,
      )
      .map(notefile);
  }

  async getNotefile(deviceUid: string, fileId: string): Promise<NotefileRecord | undefined> {
    return this.#notefile(deviceUid, fileId);
  }

  async createNotefile(deviceUid: string, fileId: string, now: number): Promise<void> {
    this.sql.transaction(() => {
      if (this.#notefile(deviceUid, fileId)) {
        throw new StoreError("notefile-exists", `{notefile-exists} notefile already exists: ${fileId}`);
      }
      this.#ensureNotefile(deviceUid, fileId, now);
    });
  }

  async addNote(
    deviceUid: string,
    fileId: string,
    content: { noteId: string | null; body: JsonObject | null; payload: string | null },
    now: number,
  ): Promise<NoteRecord> {
    return this.sql.transaction(() => {
      this.#ensureNotefile(deviceUid, fileId, now);
      const previous = content.noteId === null ? undefined : this.#note(deviceUid, fileId, content.noteId);
      if (previous && !previous.deleted) {
        throw new StoreError("note-exists", `{note-exists} note already exists: ${content.noteId}`);
      }
      const change = this.#takeChange(deviceUid, fileId, now);
      const noteId = content.noteId ?? `${HUB_ENDPOINT}:${change}`;
      const record = hubVersion(
        previous,
        noteId,
        { body: content.body, payload: content.payload, deleted: false },
        seconds(now),
        change,
      );
      this.#write(deviceUid, fileId, record);
      return record;
    });
  }

  async updateNote(
    deviceUid: string,
    fileId: string,
    noteId: string,
    content: { body: JsonObject | null; payload: string | null },
    now: number,
    create: boolean,
  ): Promise<NoteRecord> {
    return this.sql.transaction(() => {
      if (create) this.#ensureNotefile(deviceUid, fileId, now);
      else this.#requireNotefile(deviceUid, fileId);
      const previous = this.#note(deviceUid, fileId, noteId);
      if ((!previous || previous.deleted) && !create) {
        throw new StoreError("note-noexist", `{note-noexist} note not found: ${noteId}`);
      }
      const record = hubVersion(
        previous,
        noteId,
        { body: content.body, payload: content.payload, deleted: false },
        seconds(now),
        this.#takeChange(deviceUid, fileId, now),
      );
      this.#write(deviceUid, fileId, record);
      return record;
    });
  }

  #delete(deviceUid: string, fileId: string, noteId: string, now: number, tombstone: boolean): void {
    const previous = this.#note(deviceUid, fileId, noteId);
    if (!previous || previous.deleted) {
      throw new StoreError("note-noexist", `{note-noexist} cannot delete note: note not found: ${noteId}`);
    }
    if (!tombstone) {
      this.sql.run(
        "DELETE FROM notes WHERE device_uid = ? AND file_id = ? AND note_id = ?",
        deviceUid,
        fileId,
        noteId,
      );
      this.sql.run(
        "UPDATE notefiles SET modified = ? WHERE device_uid = ? AND file_id = ?",
        now,
        deviceUid,
        fileId,
      );
      return;
    }
    this.#write(
      deviceUid,
      fileId,
      hubVersion(
        previous,
        noteId,
        { body: null, payload: null, deleted: true },
        seconds(now),
        this.#takeChange(deviceUid, fileId, now),
      ),
    );
  }

  async deleteNote(
    deviceUid: string,
    fileId: string,
    noteId: string,
    now: number,
    tombstone: boolean,
  ): Promise<void> {
    this.sql.transaction(() => {
      this.#requireNotefile(deviceUid, fileId);
      this.#delete(deviceUid, fileId, noteId, now, tombstone);
    });
  }

  async getNote(deviceUid: string, fileId: string, noteId: string): Promise<NoteRecord | undefined> {
    if (!this.#notefile(deviceUid, fileId)) return undefined;
    return this.#note(deviceUid, fileId, noteId);
  }

  async listNotes(
    deviceUid: string,
    fileId: string,
    options: { includeDeleted: boolean },
  ): Promise<NoteRecord[]> {
    return this.sql
      .all<NoteRow>(
        `SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND (deleted = 0 OR ?) ORDER BY change`,
        deviceUid,
        fileId,
        int(options.includeDeleted),
      )
      .map(note);
  }

  async changes(
    deviceUid: string,
    fileId: string,
    options: ChangesOptions,
    now: number,
  ): Promise<ChangesResult> {
    return this.sql.transaction(() => {
      const nf = this.#requireNotefile(deviceUid, fileId);
      const limit = Number.isFinite(options.max) && options.max > 0 ? Math.floor(options.max) : -1;
      // Positions are the change a tracker has seen up to (protocol/trackers.ts): 0 is nothing.
      let seen = 0;
      if (options.tracker !== null && !options.start) {
        seen = this.#position(deviceUid, fileId, options.tracker);
      }
      const batch = this.sql
        .all<NoteRow>(
          `SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND change > ? AND (deleted = 0 OR ?)
           ORDER BY change LIMIT ?`,
          deviceUid,
          fileId,
          seen,
          int(options.includeDeleted),
          limit,
        )
        .map(note);
      let changes: number | undefined;
      if (options.tracker !== null) {
        // A short batch reached the end: the tracker moves past everything, skipped tombstones too.
        const complete = limit < 0 || batch.length < limit;
        const next = complete ? nf.nextChange - 1 : batch[batch.length - 1]!.change;
        if (options.peek) {
          // A look only: the tracker stays where it was.
        } else if (options.stop) {
          this.sql.run(
            "DELETE FROM trackers WHERE device_uid = ? AND file_id = ? AND tracker_id = ?",
            deviceUid,
            fileId,
            options.tracker,
          );
        } else {
          this.sql.run(
            `INSERT INTO trackers (device_uid, file_id, tracker_id, change) VALUES (?, ?, ?, ?)
             ON CONFLICT (device_uid, file_id, tracker_id) DO UPDATE SET change = excluded.change`,
            deviceUid,
            fileId,
            options.tracker,
            next,
          );
        }
        changes = this.sql.get<{ n: number }>(
          `SELECT count(*) AS n FROM notes WHERE device_uid = ? AND file_id = ? AND change > ? AND (deleted = 0 OR ?)`,
          deviceUid,
          fileId,
          next,
          int(options.includeDeleted),
        )!.n;
      }
      if (options.deleteReturned && !options.peek) {
        for (const n of batch) {
          if (!n.deleted) this.#delete(deviceUid, fileId, n.noteId, now, options.tombstoneOnDelete);
        }
      }
      const total = this.#notefile(deviceUid, fileId)!.total;
      return { changes, total, notes: batch };
    });
  }

  async summaries(
    deviceUid: string,
    tracker: string | null,
  ): Promise<{ fileId: string; total: number; position: number; changes: number }[]> {
    return this.sql.all<{ fileId: string; total: number; position: number; changes: number }>(
      `SELECT s.fileId, s.total, s.position,
        (SELECT count(*) FROM notes WHERE device_uid = ? AND file_id = s.fileId AND ${pending("s.position", "?")}) AS changes
       FROM (SELECT f.file_id AS fileId,
          (SELECT count(*) FROM notes n WHERE n.device_uid = f.device_uid AND n.file_id = f.file_id AND n.deleted = 0) AS total,
          coalesce((SELECT t.change FROM trackers t WHERE t.device_uid = f.device_uid AND t.file_id = f.file_id
            AND t.tracker_id = ?), 0) AS position
         FROM notefiles f WHERE f.device_uid = ? AND f.deleted = 0) s
       ORDER BY s.fileId`,
      deviceUid,
      tracker ?? "",
      tracker ?? "",
      deviceUid,
    );
  }

  async deleteNotefiles(deviceUid: string, fileIds: string[], now: number): Promise<void> {
    this.sql.transaction(() => {
      for (const fileId of fileIds) this.#requireNotefile(deviceUid, fileId);
      for (const fileId of new Set(fileIds)) {
        this.sql.run("DELETE FROM notes WHERE device_uid = ? AND file_id = ?", deviceUid, fileId);
        this.sql.run("DELETE FROM trackers WHERE device_uid = ? AND file_id = ?", deviceUid, fileId);
        // The notefile row stays as a tombstone so the device learns of the deletion at its next sync.
        this.sql.run(
          "UPDATE notefiles SET deleted = 1, box_change = ?, modified = ? WHERE device_uid = ? AND file_id = ?",
          this.#nextBoxChange(deviceUid),
          now,
          deviceUid,
          fileId,
        );
      }
    });
  }

  async deletedNotefiles(deviceUid: string): Promise<string[]> {
    return this.sql
      .all<{ file_id: string }>(
        "SELECT file_id FROM notefiles WHERE device_uid = ? AND deleted = 1 ORDER BY file_id",
        deviceUid,
      )
      .map((r) => r.file_id);
  }

  async forgetDeletedNotefiles(deviceUid: string, fileIds: readonly string[]): Promise<void> {
    if (fileIds.length === 0) return;
    this.sql.transaction(() => {
      for (const fileId of new Set(fileIds))
        this.sql.run(
          "DELETE FROM notefiles WHERE device_uid = ? AND file_id = ? AND deleted = 1",
          deviceUid,
          fileId,
        );
    });
  }

  #position(deviceUid: string, fileId: string, tracker: string): number {
    return (
      this.sql.get<{ change: number }>(
        "SELECT change FROM trackers WHERE device_uid = ? AND file_id = ? AND tracker_id = ?",
        deviceUid,
        fileId,
        tracker,
      )?.change ?? 0
    );
  }

  async putVersion(
    deviceUid: string,
    fileId: string,
    version: Omit<NoteRecord, "change">,
    now: number,
  ): Promise<NoteRecord> {
    return this.sql.transaction(() => {
      this.#ensureNotefile(deviceUid, fileId, now);
      const record: NoteRecord = { ...version, change: this.#takeChange(deviceUid, fileId, now) };
      this.#write(deviceUid, fileId, record);
      return record;
    });
  }

  async changesAfter(
    deviceUid: string,
    fileId: string,
    tracker: string,
    after: number,
    max: number,
  ): Promise<{ notes: NoteRecord[]; through: number; more: boolean }> {
    const nf = this.#notefile(deviceUid, fileId);
    if (!nf) return { notes: [], through: after, more: false };
    const rows = this.sql
      .all<NoteRow>(
        `SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND ${pending("?", "?")}
         ORDER BY change LIMIT ?`,
        deviceUid,
        fileId,
        after,
        tracker,
        max + 1,
      )
      .map(note);
    if (rows.length > max) {
      const notes = rows.slice(0, max);
      return { notes, through: notes[notes.length - 1]?.change ?? after, more: true };
    }
    return { notes: rows, through: Math.max(after, nf.nextChange - 1), more: false };
  }

  async trackerPosition(deviceUid: string, fileId: string, tracker: string): Promise<number> {
    return this.#position(deviceUid, fileId, tracker);
  }

  async setTrackerPosition(
    deviceUid: string,
    fileId: string,
    tracker: string,
    position: number,
  ): Promise<void> {
    this.sql.run(
      `INSERT INTO trackers (device_uid, file_id, tracker_id, change) VALUES (?, ?, ?, ?)
       ON CONFLICT (device_uid, file_id, tracker_id) DO UPDATE SET change = excluded.change`,
      deviceUid,
      fileId,
      tracker,
      position,
    );
  }

  async clearTracker(deviceUid: string, tracker: string): Promise<void> {
    this.sql.run("DELETE FROM trackers WHERE device_uid = ? AND tracker_id = ?", deviceUid, tracker);
  }

  async removeDelivered(deviceUid: string, fileId: string, through: number): Promise<number> {
    const result = this.sql.run(
      "DELETE FROM notes WHERE device_uid = ? AND file_id = ? AND change <= ?",
      deviceUid,
      fileId,
      through,
    );
    return result.changes;
  }

  async purgeTombstones(deviceUid: string, fileId: string): Promise<number> {
    const positions = this.sql
      .all<{ tracker_id: string; change: number }>(
        "SELECT tracker_id, change FROM trackers WHERE device_uid = ? AND file_id = ?",
        deviceUid,
        fileId,
      )
      .map((t) => t.change);
    const device = this.sql.get<{ change: number }>(
      "SELECT change FROM trackers WHERE device_uid = ? AND file_id = ? AND tracker_id = ?",
      deviceUid,
      fileId,
      SYNC_TRACKER,
    );
    if (!device) positions.push(0);
    const passed = Math.min(...positions);
    if (passed <= 0) return 0;
    return this.sql.run(
      "DELETE FROM notes WHERE device_uid = ? AND file_id = ? AND deleted = 1 AND change <= ?",
      deviceUid,
      fileId,
      passed,
    ).changes;
  }
}
