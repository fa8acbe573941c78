import type { Note, NotefileMeta } from "./Note.js";
import type { NotefileKind } from "../../core/NotefileKind.js";

/**
 * A notefile as held in RAM. Read it freely; change it only through `Notebox`, which journals
 * every change. `notes` keeps ascending change order for queues (oldest first); the notes are also
 * held in ascending change order in an array (`ordered`, `orderedAt`), so trackers can seek by
 * change number.
 */
export class Notefile {
  readonly notes = new Map<string, Note>();
  /** Tombstones among `notes`; kept by Notebox so that `total` is O(1). */
  tombstones = 0;
  /**
   * The notes in change order from `#head` on. A queue's oldest notes leave from the front batch
   * after batch: they are stepped over (`#head` moves) and cut off the array only once they are
   * at least half of it, so sending a queue of n notes costs O(n), not a copy of the rest per batch.
   */
  readonly #ordered: Note[] = [];
  #head = 0;

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
    this.#cutHead();
    return this.#ordered;
  }

  /** How many notes `ordered` holds (tombstones included). */
  get orderedCount(): number {
    return this.#ordered.length - this.#head;
  }

  /** `ordered[i]`, without cutting the array. */
  orderedAt(i: number): Note | undefined {
    return i < 0 ? undefined : this.#ordered[this.#head + i];
  }

  /** `ordered.slice(from, to)`, without cutting the array. */
  orderedSlice(from: number, to: number = this.orderedCount): Note[] {
    return this.#ordered.slice(this.#head + from, this.#head + Math.min(to, this.orderedCount));
  }

  /** The oldest live note of a queue. */
  oldest(): Note | undefined {
    const a = this.#ordered;
    for (let i = this.#head; i < a.length; i++) if (!a[i]!.deleted) return a[i];
    return undefined;
  }

  /** Position in `ordered` of the first note changed after `change` (binary search). */
  indexAfter(change: number): number {
    const a = this.#ordered;
    let lo = this.#head;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid]!.change <= change) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.#head;
  }

  // --- kept by Notebox alongside `notes` ---------------------------------------------------------

  /** Adds a note to `ordered` at its place (usually the end: it has the newest change). */
  insertOrdered(note: Note): void {
    const a = this.#ordered;
    if (a.length === this.#head || a[a.length - 1]!.change < note.change) a.push(note);
    else a.splice(this.#head + this.indexAfter(note.change), 0, note);
  }

  /** Removes a note from `ordered`. */
  removeOrdered(note: Note): void {
    const a = this.#ordered;
    let i = this.#head + this.indexAfter(note.change - 1);
    while (i < a.length && a[i] !== note && a[i]!.change === note.change) i++;
    if (a[i] !== note) return;
    if (i === this.#head) this.removeOrderedPrefix(1);
    else if (i === a.length - 1) a.pop();
    else a.splice(i, 1);
  }

  /** Removes the first `count` notes of `ordered`. */
  removeOrderedPrefix(count: number): void {
    this.#head += Math.min(count, this.orderedCount);
    // Cut once the stepped-over notes are half the array: each note is moved O(1) times.
    if (this.#head * 2 >= this.#ordered.length) this.#cutHead();
  }

  /** Puts notes removed by `removeOrderedPrefix` back in front. */
  restoreOrderedPrefix(notes: readonly Note[]): void {
    this.#cutHead();
    this.#ordered.unshift(...notes);
  }

  clearOrdered(): void {
    this.#ordered.length = 0;
    this.#head = 0;
  }

  #cutHead(): void {
    if (this.#head === 0) return;
    this.#ordered.splice(0, this.#head);
    this.#head = 0;
  }
}
