import type { Note, NotefileMeta } from "./Note.js";
import type { NotefileKind } from "../../core/NotefileKind.js";

/**
 * A notefile as held in RAM. Read it freely; change it only through `Notebox`, which journals
 * every change. `notes` keeps ascending change order for queues (oldest first); `ordered` holds
 * the same notes as an array in ascending change order, so trackers can seek by change number.
 */
export class Notefile {
  readonly notes = new Map<string, Note>();
  /** Tombstones among `notes`; kept by Notebox so that `total` is O(1). */
  tombstones = 0;
  readonly #ordered: Note[] = [];

  constructor(
    readonly name: string,
    readonly kind: NotefileKind,
    public meta: NotefileMeta,
  ) {}

  /** Notes that are not tombstones. */
  get total(): number {
    return this.notes.size - this.tombstones;
  }

  /** The notes in ascending change order. */
  get ordered(): readonly Note[] {
    return this.#ordered;
  }

  /** The oldest live note of a queue. */
  oldest(): Note | undefined {
    for (const note of this.#ordered) if (!note.deleted) return note;
    return undefined;
  }

  /** Position in `ordered` of the first note changed after `change` (binary search). */
  indexAfter(change: number): number {
    const a = this.#ordered;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid]!.change <= change) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // --- kept by Notebox alongside `notes` ---------------------------------------------------------

  /** Adds a note to `ordered` at its place (usually the end: it has the newest change). */
  insertOrdered(note: Note): void {
    const a = this.#ordered;
    if (a.length === 0 || a[a.length - 1]!.change < note.change) a.push(note);
    else a.splice(this.indexAfter(note.change), 0, note);
  }

  /** Removes a note from `ordered`. */
  removeOrdered(note: Note): void {
    const a = this.#ordered;
    let i = this.indexAfter(note.change - 1);
    while (i < a.length && a[i] !== note && a[i]!.change === note.change) i++;
    if (a[i] !== note) return;
    if (i === 0) a.shift();
    else if (i === a.length - 1) a.pop();
    else a.splice(i, 1);
  }

  /** Removes the first `count` notes of `ordered`. */
  removeOrderedPrefix(count: number): void {
    this.#ordered.splice(0, count);
  }

  /** Puts notes removed by `removeOrderedPrefix` back in front. */
  restoreOrderedPrefix(notes: readonly Note[]): void {
    this.#ordered.unshift(...notes);
  }

  clearOrdered(): void {
    this.#ordered.length = 0;
  }
}
