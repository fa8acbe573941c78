import type { JsonObject } from "../../core/json.js";

/** One note as the module holds it in RAM. */
export interface Note {
  readonly id: string;
  body?: JsonObject;
  payload?: Uint8Array;
  /** Epoch seconds when the note was added or last updated; 0 when the module did not know the time. */
  time: number;
  /** The notefile's change number at the note's last modification (trackers compare these). */
  change: number;
  /** Modifications after creation. */
  updates: number;
  /** A database note deleted locally, kept as a tombstone until the hub has seen the delete. */
  deleted?: boolean;
  /** Number of the notefile template the note was encoded with, when the file is templated. */
  template?: number;
  /** Per-note sync state, owned by firmware/sync. */
  sync?: JsonObject;
  /**
   * Where the module was when it wrote the note (its last location fix), which a hub turns into
   * an event's `where_*` fields. Kept for untemplated notes (the compact JSON record's `w`).
   */
  where?: NoteWhere;
  /**
   * The store record key the note is kept under (set by Notebox): removing or replacing the note
   * reuses it rather than building and hashing the key again (a sync's acknowledgement removes a
   * hundred queue notes at a time). Not part of the note's content.
   */
  readonly key?: string;
}

/** A note's location: degrees, and the epoch seconds of the fix (0 when the time was unknown). */
export interface NoteWhere {
  readonly lat: number;
  readonly lon: number;
  readonly time: number;
}

/** The persisted state of a notefile besides its notes. */
export interface NotefileMeta {
  /** Last change number handed out; never goes backwards, even when notes are removed. */
  ctr: number;
  [key: string]: unknown;
}
