import {
  invalidNoteId,
  invalidNotefileName,
  invalidTrackerName,
  notefileTypeNotRecognized,
  reservedNotefileName,
  reservedTrackerName,
} from "../errors.js";
import { notefileKind, type NotefileKind } from "./NotefileKind.js";

/**
 * Naming rules of notefiles, note IDs and change trackers (reference §4.1, notelib
 * `NotefileIDIsReserved*`). Names beginning with `_` belong to the module itself, except a few
 * system notefiles hosts are expected to use; `,` separates lists of names inside the module, so
 * no name may contain it. Control characters are refused too: they cannot be typed, and the
 * module's flash records use one as a separator.
 */

/** Reserved-looking notefiles a host may still read and write. */
export const ALLOWED_SYSTEM_NOTEFILES: ReadonlySet<string> = new Set([
  "_track.qo",
  "_log.qo",
  "_health.qo",
  "_health_host.qo",
  "_req.qis",
  "_rsp.qos",
]);

/** The tracker the hub's sync session uses; hosts cannot name it (notelib: endpoint "1"). */
export const HUB_TRACKER = "1";

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** True for names only the module itself may use (a leading `_`, not one of the exceptions). */
export function isReservedNotefile(name: string): boolean {
  return name.startsWith("_") && !ALLOWED_SYSTEM_NOTEFILES.has(name);
}

/**
 * Checks a notefile name a host sent and returns its kind. Throws for names with a `,` or a
 * control character, for reserved names, and for names without one of the seven extensions.
 */
export function checkNotefileName(name: string, options: { allowReserved?: boolean } = {}): NotefileKind {
  if (name.includes(",") || CONTROL.test(name)) throw invalidNotefileName(name);
  if (!options.allowReserved && isReservedNotefile(name)) throw reservedNotefileName(name);
  const kind = notefileKind(name);
  if (!kind) throw notefileTypeNotRecognized(name);
  return kind;
}

/** Checks a note ID a host sent (database notes); `?` is handled by the caller. */
export function checkNoteId(id: string): void {
  if (id.includes(",") || CONTROL.test(id)) throw invalidNoteId(id);
}

/** Checks a change-tracker name a host sent. */
export function checkTrackerName(tracker: string): void {
  if (tracker === HUB_TRACKER) throw reservedTrackerName(tracker);
  if (tracker.includes(",") || CONTROL.test(tracker)) throw invalidTrackerName(tracker);
}
