import type { Note, NotefileMeta } from "./Note.js";
import type { NotefileKind } from "./NotefileKind.js";

/**
 * A notefile as held in RAM. Read it freely; change it only through `Notebox`, which journals
 * every change. `notes` keeps ascending change order for queues (oldest first).
 */
export class Notefile {
  readonly notes = new Map<string, Note>();
  /** Tombstones among `notes`; kept by Notebox so that `total` is O(1). */
  tombstones = 0;

  constructor(
    readonly name: string,
    readonly kind: NotefileKind,
    public meta: NotefileMeta,
  ) {}

  /** Notes that are not tombstones. */
  get total(): number {
    return this.notes.size - this.tombstones;
  }

  /** The oldest live note of a queue. */
  oldest(): Note | undefined {
    for (const note of this.notes.values()) if (!note.deleted) return note;
    return undefined;
  }
}
