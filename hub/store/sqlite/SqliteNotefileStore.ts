import type { ChangesOptions, ChangesResult, NotefileStore, SyncOutlook } from "../HubStore.js";
import { hubVersion } from "../noteVersions.js";
import type { NoteRecord, NotefileRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import type { JsonObject } from "../../../core/json.js";
import { HUB_ENDPOINT } from "../../../protocol/NoteRecord.js";
import { note, notefile, type NoteRow, type NotefileRow } from "./notefileRows.js";
import * as q from "./notefileSql.js";
import { NotefileTables, seconds } from "./NotefileTables.js";
import { NotefileTrackers } from "./NotefileTrackers.js";
import { int, type SqliteConnection } from "./SqliteConnection.js";

/**
 * The notefiles of each device, their notes' versions and the trackers that read them. The steps
 * are in NotefileTables.ts, the reads through trackers in NotefileTrackers.ts, the SQL text in
 * notefileSql.ts and the rows' mapping in notefileRows.ts. (Every method stays on this class:
 * SqliteHubStore gates the methods of the store's own prototype.)
 */
export class SqliteNotefileStore implements NotefileStore {
  readonly #t: NotefileTables;
  readonly #trackers: NotefileTrackers;

  constructor(private readonly sql: SqliteConnection) {
    this.#t = new NotefileTables(sql);
    this.#trackers = new NotefileTrackers(this.#t);
  }

  // --- notefiles ------------------------------------------------------------------------------

  async listNotefiles(deviceUid: string): Promise<NotefileRecord[]> {
    return this.sql.all<NotefileRow>(q.LIVE_NOTEFILES, deviceUid).map(notefile);
  }

  async getNotefile(deviceUid: string, fileId: string): Promise<NotefileRecord | undefined> {
    return this.#t.notefile(deviceUid, fileId);
  }

  async createNotefile(deviceUid: string, fileId: string, now: number): Promise<void> {
    this.sql.transaction(() => {
      if (this.#t.notefile(deviceUid, fileId)) {
        throw new StoreError("notefile-exists", `{notefile-exists} notefile already exists: ${fileId}`);
      }
      this.#t.ensureNotefile(deviceUid, fileId, now);
    });
  }

  async deleteNotefiles(deviceUid: string, fileIds: string[], now: number): Promise<void> {
    this.sql.transaction(() => {
      for (const fileId of fileIds) this.#t.requireNotefile(deviceUid, fileId);
      for (const fileId of new Set(fileIds)) {
        this.sql.run(q.DELETE_NOTES, deviceUid, fileId);
        this.sql.run(q.DELETE_TRACKERS, deviceUid, fileId);
        // The notefile row stays as a tombstone so the device learns of the deletion at its next sync.
        this.sql.run(q.DELETE_NOTEFILE, this.#t.nextBoxChange(deviceUid), now, deviceUid, fileId);
      }
    });
  }

  async deletedNotefiles(deviceUid: string): Promise<string[]> {
    return this.sql.all<{ file_id: string }>(q.DELETED_NOTEFILES, deviceUid).map((r) => r.file_id);
  }

  async syncOutlook(deviceUid: string): Promise<SyncOutlook> {
    // Every session's open: from memory until a notefile, note, tracker or signal is written.
    return q.syncOutlook(this.sql.cachedAll<q.OutlookRow>(q.SYNC_OUTLOOK, deviceUid, deviceUid, deviceUid));
  }

  async forgetDeletedNotefiles(deviceUid: string, fileIds: readonly string[]): Promise<void> {
    if (fileIds.length === 0) return;
    this.sql.transaction(() => {
      for (const fileId of new Set(fileIds)) this.sql.run(q.FORGET_DELETED_NOTEFILE, deviceUid, fileId);
    });
  }

  // --- notes ----------------------------------------------------------------------------------

  async addNote(
    deviceUid: string,
    fileId: string,
    content: { noteId: string | null; body: JsonObject | null; payload: string | null },
    now: number,
  ): Promise<NoteRecord> {
    return this.sql.transaction(() => {
      this.#t.ensureNotefile(deviceUid, fileId, now);
      const previous = content.noteId === null ? undefined : this.#t.note(deviceUid, fileId, content.noteId);
      if (previous && !previous.deleted) {
        throw new StoreError("note-exists", `{note-exists} note already exists: ${content.noteId}`);
      }
      const change = this.#t.takeChange(deviceUid, fileId, now);
      const noteId = content.noteId ?? `${HUB_ENDPOINT}:${change}`;
      const record = hubVersion(
        previous,
        noteId,
        { body: content.body, payload: content.payload, deleted: false },
        seconds(now),
        change,
      );
      this.#t.write(deviceUid, fileId, record);
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
      if (create) this.#t.ensureNotefile(deviceUid, fileId, now);
      else this.#t.requireNotefile(deviceUid, fileId);
      const previous = this.#t.note(deviceUid, fileId, noteId);
      if ((!previous || previous.deleted) && !create) {
        throw new StoreError("note-noexist", `{note-noexist} note not found: ${noteId}`);
      }
      const record = hubVersion(
        previous,
        noteId,
        { body: content.body, payload: content.payload, deleted: false },
        seconds(now),
        this.#t.takeChange(deviceUid, fileId, now),
      );
      this.#t.write(deviceUid, fileId, record);
      return record;
    });
  }

  async deleteNote(
    deviceUid: string,
    fileId: string,
    noteId: string,
    now: number,
    tombstone: boolean,
  ): Promise<void> {
    this.sql.transaction(() => {
      this.#t.requireNotefile(deviceUid, fileId);
      this.#t.deleteNote(deviceUid, fileId, noteId, now, tombstone);
    });
  }

  async getNote(deviceUid: string, fileId: string, noteId: string): Promise<NoteRecord | undefined> {
    if (!this.#t.notefile(deviceUid, fileId)) return undefined;
    return this.#t.note(deviceUid, fileId, noteId);
  }

  async listNotes(
    deviceUid: string,
    fileId: string,
    options: { includeDeleted: boolean },
  ): Promise<NoteRecord[]> {
    return this.sql.all<NoteRow>(q.NOTES, deviceUid, fileId, int(options.includeDeleted)).map(note);
  }

  async putVersion(
    deviceUid: string,
    fileId: string,
    version: Omit<NoteRecord, "change">,
    now: number,
  ): Promise<NoteRecord> {
    return this.sql.transaction(() => {
      this.#t.ensureNotefile(deviceUid, fileId, now);
      const record: NoteRecord = { ...version, change: this.#t.takeChange(deviceUid, fileId, now) };
      this.#t.write(deviceUid, fileId, record);
      return record;
    });
  }

  // --- changes through trackers ---------------------------------------------------------------

  async changes(
    deviceUid: string,
    fileId: string,
    options: ChangesOptions,
    now: number,
  ): Promise<ChangesResult> {
    return this.#trackers.changes(deviceUid, fileId, options, now);
  }

  async summaries(
    deviceUid: string,
    tracker: string | null,
  ): Promise<{ fileId: string; total: number; position: number; changes: number }[]> {
    return this.#trackers.summaries(deviceUid, tracker);
  }

  async changesAfter(
    deviceUid: string,
    fileId: string,
    tracker: string,
    after: number,
    max: number,
  ): Promise<{ notes: NoteRecord[]; through: number; more: boolean }> {
    return this.#trackers.changesAfter(deviceUid, fileId, tracker, after, max);
  }

  async trackerPosition(deviceUid: string, fileId: string, tracker: string): Promise<number> {
    return this.#t.position(deviceUid, fileId, tracker);
  }

  async setTrackerPosition(
    deviceUid: string,
    fileId: string,
    tracker: string,
    position: number,
  ): Promise<void> {
    this.#t.setPosition(deviceUid, fileId, tracker, position);
  }

  async clearTracker(deviceUid: string, tracker: string): Promise<void> {
    this.#trackers.clearTracker(deviceUid, tracker);
  }

  async removeDelivered(deviceUid: string, fileId: string, through: number): Promise<number> {
    return this.#trackers.removeDelivered(deviceUid, fileId, through);
  }

  async purgeTombstones(deviceUid: string, fileId: string): Promise<number> {
    return this.#trackers.purgeTombstones(deviceUid, fileId);
  }
}
