import { hubVersion } from "../noteVersions.js";
import type { NoteRecord, NotefileRecord } from "../records.js";
import { StoreError } from "../StoreError.js";
import { seconds } from "../sqlite/NotefileTables.js";
import { note, notefile, noteValues, type NoteRow, type NotefileRow } from "../sqlite/notefileRows.js";
import * as q from "../sqlite/notefileSql.js";
import { bool } from "../sqlite/SqliteConnection.js";
import type { PgConnection } from "./PgConnection.js";

/** device, file, modified: takes the notefile's next change number (the row stays locked until the commit). */
const TAKE_CHANGE = `UPDATE notefiles SET next_change = next_change + 1, modified = ? WHERE device_uid = ? AND file_id = ?
  RETURNING next_change - 1 AS change`;

/** device: takes the notebox's next change number. */
const TAKE_BOX_CHANGE = `UPDATE devices SET notebox_next_change = notebox_next_change + 1 WHERE uid = ?
  RETURNING notebox_next_change - 1 AS change`;

/** device, file, box change, created, modified: a notefile made meanwhile by another transaction stays. */
const INSERT_NOTEFILE = `${q.INSERT_NOTEFILE} ON CONFLICT (device_uid, file_id) DO NOTHING`;

/**
 * The steps of the notefile store's methods on PostgreSQL (SQLite's NotefileTables, awaited):
 * each runs inside the caller's transaction. Change numbers are taken by an UPDATE that returns
 * them, so two transactions writing one notefile take them one after the other.
 */
export class PgNotefileTables {
  constructor(readonly sql: PgConnection) {}

  async notefile(deviceUid: string, fileId: string): Promise<NotefileRecord | undefined> {
    const row = await this.sql.get<NotefileRow>(q.LIVE_NOTEFILE, deviceUid, fileId);
    return row && notefile(row);
  }

  async requireNotefile(deviceUid: string, fileId: string): Promise<NotefileRecord> {
    const nf = await this.notefile(deviceUid, fileId);
    if (!nf) {
      throw new StoreError("notefile-noexist", `{notefile-noexist} notefile does not exist: ${fileId}`);
    }
    return nf;
  }

  /** The notebox's own change counter (a notefile's creation or deletion is a notebox change). */
  async nextBoxChange(deviceUid: string): Promise<number> {
    const row = await this.sql.get<{ change: number }>(TAKE_BOX_CHANGE, deviceUid);
    if (!row) throw new StoreError("not-found", `device not found: ${deviceUid}`);
    return row.change;
  }

  /** Creates the notefile, or brings back a deleted one; one that is there is left as it is. */
  async ensureNotefile(deviceUid: string, fileId: string, now: number): Promise<void> {
    const row = await this.sql.get<{ deleted: number }>(q.NOTEFILE_DELETED, deviceUid, fileId);
    if (row && !bool(row.deleted)) return;
    const box = await this.nextBoxChange(deviceUid);
    if (row) await this.sql.run(q.REVIVE_NOTEFILE, box, now, now, deviceUid, fileId);
    else await this.sql.run(INSERT_NOTEFILE, deviceUid, fileId, box, now, now);
  }

  /** Takes the notefile's next change number and marks it modified. */
  async takeChange(deviceUid: string, fileId: string, now: number): Promise<number> {
    const row = await this.sql.get<{ change: number }>(TAKE_CHANGE, now, deviceUid, fileId);
    return row!.change;
  }

  async note(deviceUid: string, fileId: string, noteId: string): Promise<NoteRecord | undefined> {
    const row = await this.sql.get<NoteRow>(q.NOTE, deviceUid, fileId, noteId);
    return row && note(row);
  }

  /** Stores the note's version, in place of the one it had. */
  async write(deviceUid: string, fileId: string, n: NoteRecord): Promise<void> {
    await this.sql.run(q.UPSERT_NOTE, deviceUid, fileId, ...noteValues(n));
  }

  /** Deletes a live note: as a tombstone (a version at a new change), or row and all. */
  async deleteNote(
    deviceUid: string,
    fileId: string,
    noteId: string,
    now: number,
    tombstone: boolean,
  ): Promise<void> {
    const previous = await this.note(deviceUid, fileId, noteId);
    if (!previous || previous.deleted) {
      throw new StoreError("note-noexist", `{note-noexist} cannot delete note: note not found: ${noteId}`);
    }
    if (!tombstone) {
      await this.sql.run(q.DELETE_NOTE, deviceUid, fileId, noteId);
      await this.sql.run(q.TOUCH_NOTEFILE, now, deviceUid, fileId);
      return;
    }
    const change = await this.takeChange(deviceUid, fileId, now);
    await this.write(
      deviceUid,
      fileId,
      hubVersion(previous, noteId, { body: null, payload: null, deleted: true }, seconds(now), change),
    );
  }

  /** The change the tracker has seen up to in the notefile (protocol/trackers.ts): 0 is nothing. */
  async position(deviceUid: string, fileId: string, tracker: string): Promise<number> {
    const row = await this.sql.get<{ change: number }>(q.TRACKER_POSITION, deviceUid, fileId, tracker);
    return row?.change ?? 0;
  }

  async setPosition(deviceUid: string, fileId: string, tracker: string, position: number): Promise<void> {
    await this.sql.run(q.SET_TRACKER, deviceUid, fileId, tracker, position);
  }
}
