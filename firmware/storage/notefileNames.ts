import type { NotefileKind } from "../../core/NotefileKind.js";
import { isValidNoteId, kindOfGoodName, notefileNameFault } from "../../core/notefileNames.js";
import { trackerNameFault } from "../../protocol/trackers.js";
import {
  invalidNoteId,
  invalidNotefileName,
  invalidTrackerName,
  notefileTypeNotRecognized,
  reservedNotefileName,
  reservedTrackerName,
} from "../errors.js";

/** The shared naming rules (core/notefileNames.ts) with the module's error texts. */

/**
 * Checks a notefile name a host sent and returns its kind. Throws for names with a `,` or a
 * control character, for reserved names, and for names without one of the seven extensions.
 */
export function checkNotefileName(name: string, options: { allowReserved?: boolean } = {}): NotefileKind {
  switch (notefileNameFault(name, options)) {
    case "invalid":
      throw invalidNotefileName(name);
    case "reserved":
      throw reservedNotefileName(name);
    case "unknown-kind":
      throw notefileTypeNotRecognized(name);
  }
  return kindOfGoodName(name);
}

/** Checks a note ID a host sent (database notes; `?` is handled by the caller). */
export function checkNoteId(id: string): void {
  if (!isValidNoteId(id)) throw invalidNoteId(id);
}

/** Checks a change-tracker name a host sent. */
export function checkTrackerName(tracker: string): void {
  const fault = trackerNameFault(tracker);
  if (fault === "reserved") throw reservedTrackerName(tracker);
  if (fault === "invalid") throw invalidTrackerName(tracker);
}
