import type { ChangesOptions, ChangesResult } from "../HubStore.js";
import type { NoteRecord } from "../records.js";
import { SYNC_TRACKER } from "../../../protocol/trackers.js";
import { note, type NoteRow } from "./notefileRows.js";
import * as q from "./notefileSql.js";
import type { NotefileTables } from "./NotefileTables.js";
import { int } from "./SqliteConnection.js";

/**
 * A notefile's changes as its readers see them: each reader (the API's trackers, the device's
 * `_sync`) has a tracker, the change it has seen up to; reading moves it, and what every tracker
 * has passed can go (delivered notes, tombstones).
 */
export class NotefileTrackers {
  constructor(private readonly t: NotefileTables) {}

  /** The API's read of changes (`NotefileStore.changes`), as one transaction. */
  changes(deviceUid: string, fileId: string, options: ChangesOptions, now: number): ChangesResult {
    const { sql } = this.t;
    return sql.transaction(() => {
      const nf = this.t.requireNotefile(deviceUid, fileId);
      const limit = Number.isFinite(options.max) && options.max > 0 ? Math.floor(options.max) : -1;
      // Positions are the change a tracker has seen up to (protocol/trackers.ts): 0 is nothing.
      let seen = 0;
      if (options.tracker !== null && !options.start) {
        seen = this.t.position(deviceUid, fileId, options.tracker);
      }
      const batch = sql
        .all<NoteRow>(q.NOTES_AFTER, deviceUid, fileId, seen, int(options.includeDeleted), limit)
        .map(note);
      let changes: number | undefined;
      if (options.tracker !== null) {
        // A short batch reached the end: the tracker moves past everything, skipped tombstones too.
        const complete = limit < 0 || batch.length < limit;
        const next = complete ? nf.nextChange - 1 : batch[batch.length - 1]!.change;
        this.#moveTracker(deviceUid, fileId, options, options.tracker, next);
        changes = sql.get<{ n: number }>(
          q.COUNT_NOTES_AFTER,
          deviceUid,
          fileId,
          next,
          int(options.includeDeleted),
        )!.n;
      }
      if (options.deleteReturned && !options.peek) {
        for (const n of batch) {
          if (!n.deleted) this.t.deleteNote(deviceUid, fileId, n.noteId, now, options.tombstoneOnDelete);
        }
      }
      const total = this.t.notefile(deviceUid, fileId)!.total;
      return { changes, total, notes: batch };
    });
  }

  /** After a read of changes through `next`: a peek leaves the tracker, a stop removes it. */
  #moveTracker(
    deviceUid: string,
    fileId: string,
    options: ChangesOptions,
    tracker: string,
    next: number,
  ): void {
    if (options.peek) {
      // A look only: the tracker stays where it was.
    } else if (options.stop) {
      this.t.sql.run(q.DELETE_TRACKER, deviceUid, fileId, tracker);
    } else {
      this.t.setPosition(deviceUid, fileId, tracker, next);
    }
  }

  summaries(
    deviceUid: string,
    tracker: string | null,
  ): { fileId: string; total: number; position: number; changes: number }[] {
    return this.t.sql.all<{ fileId: string; total: number; position: number; changes: number }>(
      q.SUMMARIES,
      deviceUid,
      tracker ?? "",
      tracker ?? "",
      deviceUid,
    );
  }

  changesAfter(
    deviceUid: string,
    fileId: string,
    tracker: string,
    after: number,
    max: number,
  ): { notes: NoteRecord[]; through: number; more: boolean } {
    const nf = this.t.notefile(deviceUid, fileId);
    if (!nf) return { notes: [], through: after, more: false };
    const rows = this.t.sql
      .all<NoteRow>(q.PENDING_NOTES, deviceUid, fileId, after, tracker, max + 1)
      .map(note);
    if (rows.length > max) {
      const notes = rows.slice(0, max);
      return { notes, through: notes[notes.length - 1]?.change ?? after, more: true };
    }
    return { notes: rows, through: Math.max(after, nf.nextChange - 1), more: false };
  }

  clearTracker(deviceUid: string, tracker: string): void {
    this.t.sql.run(q.CLEAR_TRACKER, deviceUid, tracker);
  }

  removeDelivered(deviceUid: string, fileId: string, through: number): number {
    return this.t.sql.run(q.DELETE_DELIVERED, deviceUid, fileId, through).changes;
  }

  /** Removes the tombstones every tracker has passed (the device's own counts as at 0 until it has one). */
  purgeTombstones(deviceUid: string, fileId: string): number {
    const { sql } = this.t;
    const positions = sql
      .all<{ tracker_id: string; change: number }>(q.TRACKER_POSITIONS, deviceUid, fileId)
      .map((t) => t.change);
    const device = sql.get<{ change: number }>(q.TRACKER_POSITION, deviceUid, fileId, SYNC_TRACKER);
    if (!device) positions.push(0);
    const passed = Math.min(...positions);
    if (passed <= 0) return 0;
    return sql.run(q.PURGE_TOMBSTONES, deviceUid, fileId, passed).changes;
  }
}
