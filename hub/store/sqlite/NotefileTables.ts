import { hubVersion } from "../noteVersions.js";
import type { NoteRecord, NotefileRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import { note, notefile, noteValues, type NoteRow, type NotefileRow } from "./notefileRows.js";
import * as q from "./notefileSql.js";
import { bool, type SqliteConnection } from "./SqliteConnection.js";

export const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * The steps the notefile store's methods are made of, over the notefiles, notes and trackers
 * tables: each runs inside the caller's transaction and opens none of its own.
 */
export class NotefileTables {
  constructor(readonly sql: SqliteConnection) {}

  notefile(deviceUid: string, fileId: string): NotefileRecord | undefined {
    const row = this.sql.get<NotefileRow>(q.LIVE_NOTEFILE, deviceUid, fileId);
    return row && notefile(row);
  }

  requireNotefile(deviceUid: string, fileId: string): NotefileRecord {
    const nf = this.notefile(deviceUid, fileId);
    if (!nf) {
      throw new StoreError("notefile-noexist", `{notefile-noexist} notefile does not exist: ${fileId}`);
    }
    return nf;
  }

  /** The notebox's own change counter (a notefile's creation or deletion is a notebox change). */
  nextBoxChange(deviceUid: string): number {
    const row = this.sql.get<{ notebox_next_change: number }>(q.NEXT_BOX_CHANGE, deviceUid);
    if (!row) throw new StoreError("not-found", `device not found: ${deviceUid}`);
    this.sql.run(q.TAKE_BOX_CHANGE, deviceUid);
    return row.notebox_next_change;
  }

  /** Creates the notefile, or brings back a deleted one; one that is there is left as it is. */
  ensureNotefile(deviceUid: string, fileId: string, now: number): void {
    const row = this.sql.get<{ deleted: number }>(q.NOTEFILE_DELETED, deviceUid, fileId);
    if (row && !bool(row.deleted)) return;
    const box = this.nextBoxChange(deviceUid);
    if (row) this.sql.run(q.REVIVE_NOTEFILE, box, now, now, deviceUid, fileId);
    else this.sql.run(q.INSERT_NOTEFILE, deviceUid, fileId, box, now, now);
  }

  /** Takes the notefile's next change number and marks it modified. */
  takeChange(deviceUid: string, fileId: string, now: number): number {
    const row = this.sql.get<{ next_change: number }>(q.NEXT_CHANGE, deviceUid, fileId)!;
    this.sql.run(q.TAKE_CHANGE, now, deviceUid, fileId);
    return row.next_change;
  }

  note(deviceUid: string, fileId: string, noteId: string): NoteRecord | undefined {
    const row = this.sql.get<NoteRow>(q.NOTE, deviceUid, fileId, noteId);
    return row && note(row);
  }

  /** Stores the note's version, in place of the one it had. */
  write(deviceUid: string, fileId: string, n: NoteRecord): void {
    this.sql.run(q.UPSERT_NOTE, deviceUid, fileId, ...noteValues(n));
  }

  /**
   * Deletes a live note: as a tombstone (a version of its own, at a new change, that trackers
   * read), or at once, row and all.
   */
  deleteNote(deviceUid: string, fileId: string, noteId: string, now: number, tombstone: boolean): void {
    const previous = this.note(deviceUid, fileId, noteId);
    if (!previous || previous.deleted) {
      throw new StoreError("note-noexist", `{note-noexist} cannot delete note: note not found: ${noteId}`);
    }
    if (!tombstone) {
      this.sql.run(q.DELETE_NOTE, deviceUid, fileId, noteId);
      this.sql.run(q.TOUCH_NOTEFILE, now, deviceUid, fileId);
      return;
    }
    this.write(
      deviceUid,
      fileId,
      hubVersion(
        previous,
        noteId,
        { body: null, payload: null, deleted: true },
        seconds(now),
        this.takeChange(deviceUid, fileId, now),
      ),
    );
  }

  /** The change the tracker has seen up to in the notefile (protocol/trackers.ts): 0 is nothing. */
  position(deviceUid: string, fileId: string, tracker: string): number {
    return this.sql.get<{ change: number }>(q.TRACKER_POSITION, deviceUid, fileId, tracker)?.change ?? 0;
  }

  setPosition(deviceUid: string, fileId: string, tracker: string, position: number): void {
    this.sql.run(q.SET_TRACKER, deviceUid, fileId, tracker, position);
  }
}
