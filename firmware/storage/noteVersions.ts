import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { DEVICE_ENDPOINT, historyOf, type NoteRecord } from "../../protocol/NoteRecord.js";
import type { Note } from "./Note.js";

/**
 * A note's sync state (`Note.sync`), kept with it on flash:
 * - `e`: endpoint of its last change, when not this module (`"1"`: the hub);
 * - `h`: its history (a version vector), when it holds more than its own last change;
 * - `x`: the versions that lost a merge against it;
 * - `in`: it arrived from the hub and has not changed since (never sent back: no echo).
 */
interface NoteSync {
  e?: string;
  h?: Record<string, number>;
  x?: NoteRecord[];
  in?: 1;
}

/** No sync state: what a note the module made and never merged has (no object made per note). */
const NO_SYNC: Readonly<NoteSync> = Object.freeze({});

function syncOf(note: Note): Readonly<NoteSync> {
  return (note.sync as NoteSync | undefined) ?? NO_SYNC;
}

/**
 * The note as the protocol carries it. The record shares the note's body rather than copying it:
 * a stored body is never changed in place (an update stores a new one), every hub link sends a
 * record as JSON text, and `fromRecord` copies what it stores.
 */
export function toRecord(note: Note): NoteRecord {
  const sync = syncOf(note);
  const record: {
    -readonly [K in keyof NoteRecord]: NoteRecord[K];
  } = {
    id: note.id,
    when: note.time,
    updates: note.updates,
    endpoint: sync.e ?? DEVICE_ENDPOINT,
    change: note.change,
  };
  if (note.deleted) record.deleted = true;
  else {
    if (note.body !== undefined) record.body = note.body;
    if (note.payload !== undefined && note.payload.length > 0) record.payload = encodeBase64(note.payload);
  }
  if (sync.h) record.history = sync.h;
  if (sync.x && sync.x.length > 0) record.conflicts = sync.x;
  if (note.where) record.where = { ...note.where };
  return record;
}

/**
 * The fields of a note stored from a merged record: its content and version. `received`: the
 * record came from the hub unchanged (it is then not sent back).
 */
export function fromRecord(
  record: NoteRecord,
  received: boolean,
): Pick<Note, "body" | "payload" | "time" | "updates" | "deleted" | "sync" | "where"> {
  const note: Pick<Note, "body" | "payload" | "time" | "updates" | "deleted" | "sync" | "where"> = {
    time: record.when,
    updates: record.updates,
  };
  if (record.deleted) note.deleted = true;
  else {
    if (record.body !== undefined) note.body = cloneJson(record.body) as JsonObject;
    if (record.payload !== undefined) note.payload = decodeBase64(record.payload) ?? new Uint8Array();
  }
  const sync: NoteSync = {};
  if (record.endpoint !== DEVICE_ENDPOINT) sync.e = record.endpoint;
  const history = historyOf(record);
  if (Object.keys(history).some((e) => e !== record.endpoint)) sync.h = { ...history };
  if (record.conflicts && record.conflicts.length > 0) sync.x = record.conflicts.map((c) => cloneJson(c));
  if (received) sync.in = 1;
  if (Object.keys(sync).length > 0) note.sync = sync as JsonObject;
  if (record.where) note.where = { ...record.where };
  return note;
}

/**
 * The sync state of a version the module makes on top of `previous` (an update or a delete by
 * the host): its history keeps what `previous` had seen, the conflicts this module made are
 * resolved by it, and it is the module's own change (so it is sent).
 */
export function localVersionSync(previous: Note | undefined, updates: number): JsonObject | undefined {
  if (!previous?.sync) return undefined;
  const history = { ...historyOf(toRecord(previous)), [DEVICE_ENDPOINT]: updates };
  const conflicts = (syncOf(previous).x ?? []).filter((c) => c.endpoint !== DEVICE_ENDPOINT);
  const sync: NoteSync = {};
  if (Object.keys(history).length > 1) sync.h = history;
  if (conflicts.length > 0) sync.x = conflicts;
  return Object.keys(sync).length > 0 ? (sync as JsonObject) : undefined;
}

/** True for a note that came from the hub and has not changed since (not sent back). */
export function arrivedUnchanged(note: Note): boolean {
  return syncOf(note).in === 1;
}
