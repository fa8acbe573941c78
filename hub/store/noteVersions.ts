import { nextVersion } from "../../protocol/merge.js";
import { HUB_ENDPOINT, type NoteRecord as ProtocolNote } from "../../protocol/NoteRecord.js";
import type { JsonObject } from "../../core/json.js";
import type { NoteRecord } from "./records.js";

/** A stored note as the sync protocol carries it (its version included). */
export function toProtocolNote(n: NoteRecord): ProtocolNote {
  const out: { -readonly [K in keyof ProtocolNote]: ProtocolNote[K] } = {
    id: n.noteId,
    when: n.timeSec,
    updates: n.updates,
    endpoint: n.endpoint,
    change: n.change,
  };
  if (n.deleted) out.deleted = true;
  else {
    if (n.body !== null) out.body = n.body;
    if (n.payload !== null) out.payload = n.payload;
  }
  if (n.history) out.history = n.history;
  if (n.conflicts && n.conflicts.length > 0) out.conflicts = n.conflicts;
  if (n.where) out.where = n.where;
  return out;
}

/** A protocol note as the store keeps it; `change` is the hub's, `arrived` as `NoteRecord.arrived`. */
export function fromProtocolNote(p: ProtocolNote, change: number, arrived: boolean): NoteRecord {
  return {
    noteId: p.id,
    body: p.deleted ? null : (p.body ?? null),
    payload: p.deleted ? null : (p.payload ?? null),
    timeSec: p.when,
    change,
    updates: p.updates,
    deleted: p.deleted === true,
    endpoint: p.endpoint,
    history: p.history ?? null,
    conflicts: p.conflicts && p.conflicts.length > 0 ? p.conflicts : null,
    where: p.where ? { lat: p.where.lat, lon: p.where.lon, time: p.where.time } : null,
    arrived,
  };
}

/**
 * The version the hub makes when the API changes a note (an add, an update, a tombstone) on top
 * of `previous`: one more update, the hub's own change in the history, and the conflicts the hub
 * made resolved by it (protocol/merge.ts `nextVersion`).
 */
export function hubVersion(
  previous: NoteRecord | undefined,
  noteId: string,
  content: { body: JsonObject | null; payload: string | null; deleted: boolean },
  whenSec: number,
  change: number,
): NoteRecord {
  const next = nextVersion(previous && toProtocolNote(previous), HUB_ENDPOINT, {
    id: noteId,
    when: whenSec,
    change,
    ...(content.deleted ? { deleted: true as const } : {}),
    ...(!content.deleted && content.body !== null ? { body: content.body } : {}),
    ...(!content.deleted && content.payload !== null ? { payload: content.payload } : {}),
  });
  return fromProtocolNote(next, change, false);
}
