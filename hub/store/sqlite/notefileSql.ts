import { SYNC_TRACKER } from "../../../protocol/trackers.js";
import type { SyncOutlook } from "../HubStore.js";

// The SQL of the notefile store (SQLite's dialect), by table: notefiles (one per device and name,
// with its change counter; a deleted one stays as a tombstone until the device has learnt of it),
// notes (each note's current version, at the change that wrote it) and trackers (how far each
// reader has seen). Parameters are `?`, in the order each text names them.

// --- notefiles --------------------------------------------------------------------------------

/** Notefiles with their live notes' total (alias `f`); a WHERE clause follows. */
export const SELECT_NOTEFILE = `SELECT f.*, (SELECT count(*) FROM notes n WHERE n.device_uid = f.device_uid
  AND n.file_id = f.file_id AND n.deleted = 0) AS total FROM notefiles f`;

/** device, file */
export const LIVE_NOTEFILE = `${SELECT_NOTEFILE} WHERE f.device_uid = ? AND f.file_id = ? AND f.deleted = 0`;

/** device */
export const LIVE_NOTEFILES = `${SELECT_NOTEFILE} WHERE f.device_uid = ? AND f.deleted = 0 ORDER BY f.file_id`;

/** device, file */
export const NOTEFILE_DELETED = "SELECT deleted FROM notefiles WHERE device_uid = ? AND file_id = ?";

/** box change, created, modified, device, file */
export const REVIVE_NOTEFILE =
  "UPDATE notefiles SET deleted = 0, box_change = ?, created = ?, modified = ? WHERE device_uid = ? AND file_id = ?";

/** device, file, box change, created, modified */
export const INSERT_NOTEFILE = `INSERT INTO notefiles (device_uid, file_id, next_change, deleted, box_change, created, modified)
         VALUES (?, ?, 1, 0, ?, ?, ?)`;

/** device, file */
export const NEXT_CHANGE = "SELECT next_change FROM notefiles WHERE device_uid = ? AND file_id = ?";

/** modified, device, file */
export const TAKE_CHANGE =
  "UPDATE notefiles SET next_change = next_change + 1, modified = ? WHERE device_uid = ? AND file_id = ?";

/** modified, device, file */
export const TOUCH_NOTEFILE = "UPDATE notefiles SET modified = ? WHERE device_uid = ? AND file_id = ?";

/** box change, modified, device, file: the row stays as a tombstone. */
export const DELETE_NOTEFILE =
  "UPDATE notefiles SET deleted = 1, box_change = ?, modified = ? WHERE device_uid = ? AND file_id = ?";

/** device */
export const DELETED_NOTEFILES =
  "SELECT file_id FROM notefiles WHERE device_uid = ? AND deleted = 1 ORDER BY file_id";

/** device, file */
export const FORGET_DELETED_NOTEFILE =
  "DELETE FROM notefiles WHERE device_uid = ? AND file_id = ? AND deleted = 1";

/** device: the notebox's own change counter. */
export const NEXT_BOX_CHANGE = "SELECT notebox_next_change FROM devices WHERE uid = ?";

/** device */
export const TAKE_BOX_CHANGE =
  "UPDATE devices SET notebox_next_change = notebox_next_change + 1 WHERE uid = ?";

// --- notes ------------------------------------------------------------------------------------

/** device, file, note */
export const NOTE = "SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND note_id = ?";

/** device, file, then the note's columns in the order of notefileRows.ts `noteValues` */
export const UPSERT_NOTE = `INSERT INTO notes (device_uid, file_id, note_id, body, payload, time_sec, change, updates, deleted, endpoint,
         history, conflicts, place, arrived)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (device_uid, file_id, note_id) DO UPDATE SET body = excluded.body, payload = excluded.payload,
        time_sec = excluded.time_sec, change = excluded.change, updates = excluded.updates,
        deleted = excluded.deleted, endpoint = excluded.endpoint, history = excluded.history,
        conflicts = excluded.conflicts, place = excluded.place, arrived = excluded.arrived`;

/** device, file, note */
export const DELETE_NOTE = "DELETE FROM notes WHERE device_uid = ? AND file_id = ? AND note_id = ?";

/** device, file */
export const DELETE_NOTES = "DELETE FROM notes WHERE device_uid = ? AND file_id = ?";

/** device, file, include deleted (0 or 1) */
export const NOTES = `SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND (deleted = 0 OR ?) ORDER BY change`;

/** device, file, after change, include deleted, limit (-1: all) */
export const NOTES_AFTER = `SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND change > ? AND (deleted = 0 OR ?)
           ORDER BY change LIMIT ?`;

/** device, file, after change, include deleted */
export const COUNT_NOTES_AFTER = `SELECT count(*) AS n FROM notes WHERE device_uid = ? AND file_id = ? AND change > ? AND (deleted = 0 OR ?)`;

/** device, file, through change */
export const DELETE_DELIVERED = "DELETE FROM notes WHERE device_uid = ? AND file_id = ? AND change <= ?";

/** device, file, through change */
export const PURGE_TOMBSTONES =
  "DELETE FROM notes WHERE device_uid = ? AND file_id = ? AND deleted = 1 AND change <= ?";

// --- trackers ---------------------------------------------------------------------------------

/**
 * The notes still to reach a tracker (SQL): changed after its position, and for the device's own
 * tracker not a version that came from the device unchanged (no echo).
 */
const pending = (position: string, tracker: string): string =>
  `change > ${position} AND (arrived = 0 OR ${tracker} <> '${SYNC_TRACKER}')`;

/** device, file, after change, tracker, limit */
export const PENDING_NOTES = `SELECT * FROM notes WHERE device_uid = ? AND file_id = ? AND ${pending("?", "?")}
         ORDER BY change LIMIT ?`;

/** device, tracker, tracker, device: each live notefile's total, tracker position and pending changes. */
export const SUMMARIES = `SELECT s.fileId, s.total, s.position,
        (SELECT count(*) FROM notes WHERE device_uid = ? AND file_id = s.fileId AND ${pending("s.position", "?")}) AS changes
       FROM (SELECT f.file_id AS fileId,
          (SELECT count(*) FROM notes n WHERE n.device_uid = f.device_uid AND n.file_id = f.file_id AND n.deleted = 0) AS total,
          coalesce((SELECT t.change FROM trackers t WHERE t.device_uid = f.device_uid AND t.file_id = f.file_id
            AND t.tracker_id = ?), 0) AS position
         FROM notefiles f WHERE f.device_uid = ? AND f.deleted = 0) s
       ORDER BY s.fileId`;

/**
 * device, device, device: what an opening sync session tells the device, in one read: rows of
 * kind `deleted` (tombstoned notefiles, by name), `changed` (live notefiles with a change past the
 * device's tracker that did not come from the device unchanged: SUMMARIES' `changes > 0` for
 * SYNC_TRACKER) and one `signal` row per pending signal; by kind, then name.
 */
export const SYNC_OUTLOOK = `SELECT 'deleted' AS kind, file_id AS name FROM notefiles WHERE device_uid = ? AND deleted = 1
       UNION ALL
       SELECT 'changed' AS kind, f.file_id AS name FROM notefiles f WHERE f.device_uid = ? AND f.deleted = 0
         AND EXISTS (SELECT 1 FROM notes n WHERE n.device_uid = f.device_uid AND n.file_id = f.file_id
           AND n.change > coalesce((SELECT t.change FROM trackers t WHERE t.device_uid = f.device_uid
             AND t.file_id = f.file_id AND t.tracker_id = '${SYNC_TRACKER}'), 0) AND n.arrived = 0)
       UNION ALL
       SELECT 'signal' AS kind, NULL AS name FROM signals WHERE device_uid = ?
       ORDER BY 1, 2`;

/** One row of SYNC_OUTLOOK. */
export type OutlookRow = { kind: "deleted" | "changed" | "signal"; name: string | null };

/** SYNC_OUTLOOK's rows as the store answers them. */
export function syncOutlook(rows: readonly OutlookRow[]): SyncOutlook {
  const outlook: SyncOutlook = { deleted: [], changed: [], signals: 0 };
  for (const r of rows) {
    if (r.kind === "signal") outlook.signals++;
    else outlook[r.kind].push(r.name!);
  }
  return outlook;
}

/** device, file, tracker */
export const TRACKER_POSITION =
  "SELECT change FROM trackers WHERE device_uid = ? AND file_id = ? AND tracker_id = ?";

/** device, file */
export const TRACKER_POSITIONS =
  "SELECT tracker_id, change FROM trackers WHERE device_uid = ? AND file_id = ?";

/** device, file, tracker, position */
export const SET_TRACKER = `INSERT INTO trackers (device_uid, file_id, tracker_id, change) VALUES (?, ?, ?, ?)
             ON CONFLICT (device_uid, file_id, tracker_id) DO UPDATE SET change = excluded.change`;

/** device, file, tracker */
export const DELETE_TRACKER = "DELETE FROM trackers WHERE device_uid = ? AND file_id = ? AND tracker_id = ?";

/** device, file */
export const DELETE_TRACKERS = "DELETE FROM trackers WHERE device_uid = ? AND file_id = ?";

/** device, tracker: the tracker in every notefile of the device. */
export const CLEAR_TRACKER = "DELETE FROM trackers WHERE device_uid = ? AND tracker_id = ?";
