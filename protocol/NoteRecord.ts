import type { JsonObject } from "../core/json.js";

/**
 * A note as it crosses between module and hub: the one shape both ends agree on (notelib's note:
 * body, payload, change number, the last change's time and origin, update count, tombstone).
 */
export interface NoteRecord {
  /** Note ID in its notefile (queue notes: the ID the sender gave it, unique in that file). */
  readonly id: string;
  readonly body?: JsonObject;
  /** Binary payload, base64. */
  readonly payload?: string;
  /** Epoch seconds of the last change where it was made; 0 when that end did not know the time. */
  readonly when: number;
  /** Modifications after creation: the first thing a merge compares. */
  readonly updates: number;
  /** Endpoint that made the last change: `DEVICE_ENDPOINT` or `HUB_ENDPOINT`. */
  readonly endpoint: string;
  /** A deleted database note (tombstone): body and payload are gone. */
  readonly deleted?: true;
  /** The sender's change number for this note (trackers count these). */
  readonly change: number;
  /**
   * Which versions this one has seen: for each endpoint, the update count of the last change it
   * made that this version descends from. Absent: only its own change (`{[endpoint]: updates}`).
   */
  readonly history?: Readonly<Record<string, number>>;
  /** Versions that lost a merge against this one, kept rather than dropped. */
  readonly conflicts?: readonly NoteRecord[];
  /** Where the device was when it made the change (its last location fix). */
  readonly where?: { readonly lat: number; readonly lon: number; readonly time: number };
}

/** Endpoint IDs of notelib: the device is `""`, the hub `"1"`. */
export const DEVICE_ENDPOINT = "";
export const HUB_ENDPOINT = "1";

/** The history of a version, its own change included. */
export function historyOf(note: NoteRecord): Readonly<Record<string, number>> {
  const own = note.history?.[note.endpoint];
  if (own !== undefined && own >= note.updates) return note.history!;
  return { ...note.history, [note.endpoint]: note.updates };
}

/**
 * Which of two versions of one database note wins a merge (notelib's FeedSync-style rule): more
 * updates, then the newer change, then the greater endpoint ID. Positive when `a` wins, negative
 * when `b` wins, 0 when they are the same version.
 */
export function compareVersions(a: NoteRecord, b: NoteRecord): number {
  if (a.updates !== b.updates) return a.updates - b.updates;
  if (a.when !== b.when) return a.when - b.when;
  if (a.endpoint !== b.endpoint) return a.endpoint > b.endpoint ? 1 : -1;
  return 0;
}
