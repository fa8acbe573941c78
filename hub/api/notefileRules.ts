import { type NotefileKind, notefileKind } from "../../firmware/storage/NotefileKind.js";
import * as errors from "../errors.js";

/** System notefiles a hub API client may still write (remote requests to the module). */
const WRITABLE_SYSTEM_FILES = new Set(["_req.qis"]);
const MAX_NAME = 128;
const MAX_NOTE_ID = 256;

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f,/\\]/;

/**
 * The datafile rules of interface B as they apply to the hub's replica: the hub keeps `.qi`/`.qis`
 * queues (toward the module) and `.db`/`.dbs` databases; `.qo`/`.qos` notes become events and
 * `.dbx` never leaves the module.
 */
export function hubNotefile(name: string, use: "read" | "write"): NotefileKind {
  if (name === "" || name.length > MAX_NAME || FORBIDDEN.test(name)) throw errors.notefileNameInvalid(name);
  const kind = notefileKind(name);
  if (!kind) throw errors.notefileTypeNotRecognized(name);
  if (kind.direction === "local") throw errors.notefileLocalOnly(name);
  if (kind.direction === "out") throw errors.notefileOutbound(name);
  if (use === "write" && name.startsWith("_") && !WRITABLE_SYSTEM_FILES.has(name)) {
    throw errors.notefileReserved(name);
  }
  return kind;
}

export function checkNoteId(id: string): void {
  if (id === "" || id.length > MAX_NOTE_ID || FORBIDDEN.test(id)) throw errors.noteIdInvalid(id);
}

export function checkTracker(tracker: string): void {
  if (tracker.startsWith("_") || tracker.length > MAX_NOTE_ID || FORBIDDEN.test(tracker)) {
    throw errors.trackerInvalid(tracker);
  }
}
