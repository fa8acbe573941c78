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
 * Seeks to `since` by binary search, so a tracker near the end of a long notefile costs little.
 */
export function collectChanges(file: Notefile, since: number, max: number, deleted: boolean): ChangeBatch {
  const count = file.orderedCount;
  const from = file.indexAfter(since);
  if (deleted || file.tombstones === 0) {
    // Every note after the position counts: no need to look at them all.
    const end = Math.min(count, from + max);
    const next = file.orderedAt(end);
    return {
      notes: file.orderedSlice(from, end),
      pending: count - from,
      position: next ? next.change - 1 : file.meta.ctr,
    };
  }
  const notes: Note[] = [];
  let pending = 0;
  let next: Note | undefined;
  for (let i = from; i < count; i++) {
    const note = file.orderedAt(i)!;
    if (note.deleted && !deleted) continue;
    pending++;
    if (notes.length < max) notes.push(note);
    else next ??= note;
  }
  return { notes, pending, position: next ? next.change - 1 : file.meta.ctr };
}

/** How many changes after `since` are pending in `file` (tombstones only when asked). */
export function countChanges(file: Notefile, since: number, tombstones: boolean): number {
  const count = file.orderedCount;
  const from = file.indexAfter(since);
  if (from === 0) return tombstones ? file.notes.size : file.total;
  if (tombstones || file.tombstones === 0) return count - from;
  let n = 0;
  for (let i = from; i < count; i++) if (!file.orderedAt(i)!.deleted) n++;
  return n;
}
