import type { ChangesOptions, ChangesResult, NotefileStore, SyncOutlook } from "../HubStore.js";
import { hubVersion } from "../noteVersions.js";
import type { NoteRecord, NotefileRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import type { JsonObject } from "../../../core/json.js";
import { HUB_ENDPOINT } from "../../../protocol/NoteRecord.js";
import { SYNC_TRACKER } from "../../../protocol/trackers.js";
import { seconds } from "../sqlite/NotefileTables.js";
import { note, notefile, type NoteRow, type NotefileRow } from "../sqlite/notefileRows.js";
import * as q from "../sqlite/notefileSql.js";
import type { PgConnection } from "./PgConnection.js";
import { PgNotefileTables } from "./PgNotefileTables.js";

/** The notefiles of each device, their notes and the trackers reading them, on PostgreSQL. */
export class PgNotefileStore implements NotefileStore {
  readonly #t: PgNotefileTables;

  constructor(private readonly sql: PgConnection) {
    this.#t = new PgNotefileTables(sql);
  }

  async listNotefiles(deviceUid: string): Promise<NotefileRecord[]> {
    return (await this.sql.all<NotefileRow>(q.LIVE_NOTEFILES, deviceUid)).map(notefile);
  }

  async getNotefile(deviceUid: string, fileId: string): Promise<NotefileRecord | undefined> {
    return this.#t.notefile(deviceUid, fileId);
  }

  async createNotefile(deviceUid: string, fileId: string, now: number): Promise<void> {
    await this.sql.atomic(async () => {
      if (await this.#t.notefile(deviceUid, fileId)) {
        throw new StoreError("notefile-exists", `{notefile-exists} notefile already exists: ${fileId}`);
      }
      await this.#t.ensureNotefile(deviceUid, fileId, now);
    });
  }

  async deleteNotefiles(deviceUid: string, fileIds: string[], now: number): Promise<void> {
    await this.sql.atomic(async () => {
      for (const fileId of fileIds) await this.#t.requireNotefile(deviceUid, fileId);
      for (const fileId of new Set(fileIds)) {
        await this.sql.run(q.DELETE_NOTES, deviceUid, fileId);
        await this.sql.run(q.DELETE_TRACKERS, deviceUid, fileId);
        // The notefile row stays as a tombstone so the device learns of the deletion at its next sync.
        const box = await this.#t.nextBoxChange(deviceUid);
        await this.sql.run(q.DELETE_NOTEFILE, box, now, deviceUid, fileId);
      }
    });
  }

  async deletedNotefiles(deviceUid: string): Promise<string[]> {
    return (await this.sql.all<{ file_id: string }>(q.DELETED_NOTEFILES, deviceUid)).map((r) => r.file_id);
  }

  async syncOutlook(deviceUid: string): Promise<SyncOutlook> {
    return q.syncOutlook(await this.sql.all<q.OutlookRow>(q.SYNC_OUTLOOK, deviceUid, deviceUid, deviceUid));
  }

  async forgetDeletedNotefiles(deviceUid: string, fileIds: readonly string[]): Promise<void> {
    if (fileIds.length === 0) return;
    await this.sql.atomic(async () => {
      for (const fileId of new Set(fileIds)) await this.sql.run(q.FORGET_DELETED_NOTEFILE, deviceUid, fileId);
    });
  }

  async addNote(
    deviceUid: string,
    fileId: string,
    content: { noteId: string | null; body: JsonObject | null; payload: string | null },
    now: number,
  ): Promise<NoteRecord> {
    return this.sql.atomic(async () => {
      await this.#t.ensureNotefile(deviceUid, fileId, now);
      // The change is taken first: it locks the notefile's row, so a note of the same ID added
      // meanwhile by another transaction is seen below.
      const change = await this.#t.takeChange(deviceUid, fileId, now);
      const previous =
        content.noteId === null ? undefined : await this.#t.note(deviceUid, fileId, content.noteId);
      if (previous && !previous.deleted) {
        throw new StoreError("note-exists", `{note-exists} note already exists: ${content.noteId}`);
      }
      const noteId = content.noteId ?? `${HUB_ENDPOINT}:${change}`;
      const record = hubVersion(
        previous,
        noteId,
        { body: content.body, payload: content.payload, deleted: false },
        seconds(now),
        change,
      );
      await this.#t.write(deviceUid, fileId, record);
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
    return this.sql.atomic(async () => {
      if (create) await this.#t.ensureNotefile(deviceUid, fileId, now);
      else await this.#t.requireNotefile(deviceUid, fileId);
      const change = await this.#t.takeChange(deviceUid, fileId, now);
      const previous = await this.#t.note(deviceUid, fileId, noteId);
      if ((!previous || previous.deleted) && !create) {
        throw new StoreError("note-noexist", `{note-noexist} note not found: ${noteId}`);
      }
      const record = hubVersion(
        previous,
        noteId,
        { body: content.body, payload: content.payload, deleted: false },
        seconds(now),
        change,
      );
      await this.#t.write(deviceUid, fileId, record);
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
    await this.sql.atomic(async () => {
      await this.#t.requireNotefile(deviceUid, fileId);
      await this.#t.deleteNote(deviceUid, fileId, noteId, now, tombstone);
    });
  }

  async getNote(deviceUid: string, fileId: string, noteId: string): Promise<NoteRecord | undefined> {
    if (!(await this.#t.notefile(deviceUid, fileId))) return undefined;
    return this.#t.note(deviceUid, fileId, noteId);
  }

  async listNotes(
    deviceUid: string,
    fileId: string,
    options: { includeDeleted: boolean },
  ): Promise<NoteRecord[]> {
    return (await this.sql.all<NoteRow>(q.NOTES, deviceUid, fileId, options.includeDeleted)).map(note);
  }

  async putVersion(
    deviceUid: string,
    fileId: string,
    version: Omit<NoteRecord, "change">,
    now: number,
  ): Promise<NoteRecord> {
    return this.sql.atomic(async () => {
      await this.#t.ensureNotefile(deviceUid, fileId, now);
      const record: NoteRecord = { ...version, change: await this.#t.takeChange(deviceUid, fileId, now) };
      await this.#t.write(deviceUid, fileId, record);
      return record;
    });
  }

  /** The API's read of changes (NotefileStore.changes), as one unit. */
  async changes(
    deviceUid: string,
    fileId: string,
    options: ChangesOptions,
    now: number,
  ): Promise<ChangesResult> {
    return this.sql.atomic(async () => {
      const nf = await this.#t.requireNotefile(deviceUid, fileId);
      const limit = Number.isFinite(options.max) && options.max > 0 ? Math.floor(options.max) : null;
      // Positions are the change a tracker has seen up to (protocol/trackers.ts): 0 is nothing.
      let seen = 0;
      if (options.tracker !== null && !options.start) {
        seen = await this.#t.position(deviceUid, fileId, options.tracker);
      }
      const rows = await this.sql.all<NoteRow>(
        q.NOTES_AFTER,
        deviceUid,
        fileId,
        seen,
        options.includeDeleted,
        limit,
      );
      const batch = rows.map(note);
      let changes: number | undefined;
      if (options.tracker !== null) {
        // A short batch reached the end: the tracker moves past everything, skipped tombstones too.
        const complete = limit === null || batch.length < limit;
        const next = complete ? nf.nextChange - 1 : batch[batch.length - 1]!.change;
        if (options.peek) {
          // A look only: the tracker stays where it was.
        } else if (options.stop) {
          await this.sql.run(q.DELETE_TRACKER, deviceUid, fileId, options.tracker);
        } else {
          await this.#t.setPosition(deviceUid, fileId, options.tracker, next);
        }
        const count = await this.sql.get<{ n: number }>(
          q.COUNT_NOTES_AFTER,
          deviceUid,
          fileId,
          next,
          options.includeDeleted,
        );
        changes = count!.n;
      }
      if (options.deleteReturned && !options.peek) {
        for (const n of batch) {
          if (!n.deleted)
            await this.#t.deleteNote(deviceUid, fileId, n.noteId, now, options.tombstoneOnDelete);
        }
      }
      const total = (await this.#t.notefile(deviceUid, fileId))!.total;
      return { changes, total, notes: batch };
    });
  }

  async summaries(
    deviceUid: string,
    tracker: string | null,
  ): Promise<{ fileId: string; total: number; position: number; changes: number }[]> {
    // PostgreSQL folds the unquoted alias fileId to lower case.
    const rows = await this.sql.all<{ fileid: string; total: number; position: number; changes: number }>(
      q.SUMMARIES,
      deviceUid,
      tracker ?? "",
      tracker ?? "",
      deviceUid,
    );
    return rows.map((r) => ({ fileId: r.fileid, total: r.total, position: r.position, changes: r.changes }));
  }

  async changesAfter(
    deviceUid: string,
    fileId: string,
    tracker: string,
    after: number,
    max: number,
  ): Promise<{ notes: NoteRecord[]; through: number; more: boolean }> {
    const nf = await this.#t.notefile(deviceUid, fileId);
    if (!nf) return { notes: [], through: after, more: false };
    const rows = (
      await this.sql.all<NoteRow>(q.PENDING_NOTES, deviceUid, fileId, after, tracker, max + 1)
    ).map(note);
    if (rows.length > max) {
      const notes = rows.slice(0, max);
      return { notes, through: notes[notes.length - 1]?.change ?? after, more: true };
    }
    return { notes: rows, through: Math.max(after, nf.nextChange - 1), more: false };
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
    await this.#t.setPosition(deviceUid, fileId, tracker, position);
  }

  async clearTracker(deviceUid: string, tracker: string): Promise<void> {
    await this.sql.run(q.CLEAR_TRACKER, deviceUid, tracker);
  }

  async removeDelivered(deviceUid: string, fileId: string, through: number): Promise<number> {
    return this.sql.run(q.DELETE_DELIVERED, deviceUid, fileId, through);
  }

  /** Removes the tombstones every tracker has passed (the device's own counts as at 0 until it has one). */
  async purgeTombstones(deviceUid: string, fileId: string): Promise<number> {
    const trackers = await this.sql.all<{ tracker_id: string; change: number }>(
      q.TRACKER_POSITIONS,
      deviceUid,
      fileId,
    );
    const positions = trackers.map((t) => t.change);
    if (!trackers.some((t) => t.tracker_id === SYNC_TRACKER)) positions.push(0);
    const passed = Math.min(...positions);
    if (passed <= 0) return 0;
    return this.sql.run(q.PURGE_TOMBSTONES, deviceUid, fileId, passed);
  }
}
