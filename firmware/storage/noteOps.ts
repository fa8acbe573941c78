import { encodeBase64 } from "../../core/base64.js";
import { randomInt, type Random } from "../../core/Random.js";
import type { Note } from "./Note.js";
import type { Notebox } from "./Notebox.js";
import type { NoteContent } from "./noteContent.js";
import type { Notefile } from "./Notefile.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { localVersionSync } from "./noteVersions.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/**
 * Stores `content` as note `id` of `file`: a new note, or a new version of the note with that ID
 * (a tombstone comes back to life). Returns the stored note.
 */
export function storeNote(
  notebox: Notebox,
  file: Notefile,
  id: string,
  content: NoteContent,
  options: { volatile?: boolean } = {},
): Note {
  const previous = file.notes.get(id);
  const updates = previous ? previous.updates + 1 : 0;
  const note: Omit<Note, "change"> = { id, time: content.time, updates };
  const sync = file.kind.queue ? undefined : localVersionSync(previous, updates);
  if (sync) note.sync = sync;
  if (content.body !== undefined) note.body = content.body;
  if (content.payload !== undefined) note.payload = content.payload;
  if (content.template !== undefined) note.template = content.template;
  else if (content.where !== undefined) note.where = content.where;
  return notebox.putNote(file, note, options);
}

/**
 * Deletes a note as the module does: a queue note is gone at once; a database note becomes a
 * tombstone (new change number, contents kept) until the hub has seen the delete.
 */
export function deleteNote(notebox: Notebox, file: Notefile, note: Note): void {
  if (file.kind.queue) {
    notebox.removeNote(file, note.id);
    return;
  }
  if (note.deleted) return;
  const { change: _change, sync: _sync, ...rest } = note;
  const updates = note.updates + 1;
  const sync = localVersionSync(note, updates);
  notebox.putNote(file, { ...rest, deleted: true, updates, ...(sync ? { sync } : {}) });
}

/** A fresh database note ID for `note:"?"`: change number * 256 + a random byte (as notelib). */
export function newNoteId(file: Notefile, random: Random): string {
  const base = (file.meta.ctr + 1) * 256;
  for (let i = 0; i < 16; i++) {
    const id = String(base + randomInt(random, 256));
    if (!file.notes.has(id)) return id;
  }
  // Only reachable when the host chose IDs in this range itself: take the next free number.
  let n = base;
  while (file.notes.has(String(n))) n++;
  return String(n);
}

/** How a note appears in `note.get` and `note.changes` replies (empty members left out). */
export function noteInfo(note: Note): JsonObject {
  const info: JsonObject = {};
  if (note.body !== undefined) info["body"] = cloneJson(note.body);
  if (note.payload !== undefined && note.payload.length > 0) info["payload"] = encodeBase64(note.payload);
  if (note.time) info["time"] = note.time;
  if (note.deleted) info["deleted"] = true;
  return info;
}

/**
 * Drops the tombstones of `file` that every tracker with a position in it has passed (notelib
 * `PurgeTombstones`, run when a tracker moves). A notefile that syncs also waits for the hub
 * tracker, which only the sync engine moves, so its tombstones stay until the hub has seen them;
 * a `.dbx` never syncs, so its tombstones go once the host's trackers have seen them.
 */
export function purgeTombstones(notebox: Notebox, file: Notefile): void {
  if (file.tombstones === 0) return;
  let seen = file.meta.ctr;
  for (const tracker of notebox.trackers()) {
    const position = notebox.trackerPosition(tracker, file.name);
    if (position !== undefined) seen = Math.min(seen, position);
  }
  if (file.kind.direction !== "local")
    seen = Math.min(seen, notebox.trackerPosition(SYNC_TRACKER, file.name) ?? 0);
  const purge = file.orderedSlice(0, file.indexAfter(seen)).filter((note) => note.deleted);
  for (const note of purge) notebox.removeNote(file, note.id);
}
