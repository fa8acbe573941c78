import type { NotePlace, NoteRecord, NotefileRecord } from "../records.js";
import type { NoteRecord as ProtocolNote } from "../../../protocol/NoteRecord.js";
import { bool, int, parseJson } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

// Rows of the notes and notefiles tables, and the records they hold (both ways); the SQL that
// reads and writes them is in notefileSql.ts.

export interface NoteRow {
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

export interface NotefileRow {
  device_uid: string;
  file_id: string;
  next_change: number;
  deleted: number;
  created: number;
  modified: number;
  total: number;
}

export const note = (r: NoteRow): NoteRecord => ({
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

/** The parameters of `UPSERT_NOTE` after the device and notefile: the note's columns, in order. */
export const noteValues = (n: NoteRecord): unknown[] => [
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
];

export const notefile = (r: NotefileRow): NotefileRecord => ({
  deviceUid: r.device_uid,
  fileId: r.file_id,
  nextChange: r.next_change,
  total: r.total,
  created: r.created,
  modified: r.modified,
});
