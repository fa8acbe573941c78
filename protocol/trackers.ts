import { FORBIDDEN_IN_NAMES, MAX_NOTE_ID } from "../core/notefileNames.js";

/**
 * Change trackers, as both ends keep them (notelib `lib/notefile.go`). Every notefile numbers its
 * changes from 1 up: each add, update or delete stamps the note with the file's next change
 * number. A tracker's position in a file is the change number it has SEEN UP TO: 0 means
 * nothing seen, and the changes still to send it are those numbered above its position.
 *
 * Each end keeps one tracker for the other, named `SYNC_TRACKER` on both: the module's tracker
 * for the hub and the hub's tracker for the module. Neither hosts nor API clients may use it.
 */
export const SYNC_TRACKER = "1";

/** Position of a tracker that has seen nothing (a new or reset tracker). */
export const TRACKER_START = 0;

/** True when a note changed at `change` is still to be sent to a tracker at `position`. */
export function isPending(change: number, position: number | undefined): boolean {
  return change > (position ?? TRACKER_START);
}

/**
 * What is wrong with a tracker name a host or an API client chose: `""`, the sync tracker and
 * names beginning with `_` are the system's, and the character rules of note IDs apply.
 */
export function trackerNameFault(tracker: string): "invalid" | "reserved" | undefined {
  if (tracker === "" || tracker === SYNC_TRACKER || tracker.startsWith("_")) return "reserved";
  if (tracker.length > MAX_NOTE_ID || FORBIDDEN_IN_NAMES.test(tracker)) return "invalid";
  return undefined;
}
