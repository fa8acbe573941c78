import type { Note } from "./Note.js";
import type { Notefile } from "./Notefile.js";

/** Default batch of `note.changes` (notelib `defaultMaxGetChangesBatchSize`). */
export const DEFAULT_CHANGES_BATCH = 25;

/** One batch of changed notes for a tracker. */
export interface ChangeBatch {
  /** The changed notes returned now, oldest change first. */
  readonly notes: readonly Note[];
  /** Changes pending before this batch, the returned ones included. */
  readonly pending: number;
  /** Where the tracker stands once the batch is delivered. */
  readonly position: number;
}

/**
 * The notes of `file` changed after `since` (a tracker position: the last change number seen),
 * at most `max` of them. Tombstones count only with `deleted`; skipped ones are passed over.
 */
export function collectChanges(file: Notefile, since: number, max: number, deleted: boolean): ChangeBatch {
  const notes: Note[] = [];
  let pending = 0;
  let next: Note | undefined;
  // file.notes is kept in ascending change order.
  for (const note of file.notes.values()) {
    if (note.change <= since || (note.deleted && !deleted)) continue;
    pending++;
    if (notes.length < max) notes.push(note);
    else next ??= note;
  }
  return { notes, pending, position: next ? next.change - 1 : file.meta.ctr };
}

/** How many changes after `since` are pending in `file` (tombstones only when asked). */
export function countChanges(file: Notefile, since: number, tombstones: boolean): number {
  if (since <= 0 && tombstones) return file.notes.size;
  if (since <= 0) return file.total;
  let n = 0;
  for (const note of file.notes.values()) {
    if (note.change > since && (tombstones || !note.deleted)) n++;
  }
  return n;
}
