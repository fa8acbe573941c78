import { jsonLengthBound } from "../../core/json.js";
import { notefileKind } from "../../core/NotefileKind.js";
import type { NoteRecord } from "../../protocol/NoteRecord.js";
import type { ChangeBatch, PushReply } from "../../protocol/messages.js";
import { BATCH_LIMITS } from "../../protocol/messages.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { collectChanges } from "../storage/noteChanges.js";
import { purgeTombstones } from "../storage/noteOps.js";
import { arrivedUnchanged, toRecord } from "../storage/noteVersions.js";
import { exchange } from "./HubExchange.js";
import type { Traffic } from "./SyncState.js";
import type { SyncHost } from "./syncTypes.js";

/*
 * The module's changes for the hub: which notefiles have some, their changes collected into
 * batches (at most `BATCH_LIMITS.notes` notes, under `BATCH_LIMITS.bytes` of JSON), each sent
 * as a `push` and, once the hub took it, the tracker moved.
 */

/**
 * Sends every outbound notefile's changes, batch by batch: one turn among the module's writers
 * lists the notefiles and collects the first batch, then one per batch the hub took acknowledges
 * it (its own transaction) and collects the next (which changes nothing).
 */
export async function sendChanges(
  module: SyncHost,
  token: string,
  secure: boolean,
  traffic: Traffic,
): Promise<void> {
  let files: string[] = [];
  /** The next batch: of the notefile in hand while it has more, else of the next with any. */
  const next = (): ChangeBatch | undefined => {
    for (let file = files[0]; file !== undefined; files.shift(), file = files[0]) {
      const batch = collectBatch(module, file);
      if (batch) return batch;
    }
    return undefined;
  };
  let batch = await module.exclusive(() => {
    files = outboundFiles(module, secure);
    return next();
  });
  while (batch) {
    await exchange<PushReply>(module, { v: PROTOCOL_VERSION, type: "push", token, ...batch }, traffic);
    traffic.notes_sent += batch.notes.length;
    const sent = batch;
    batch = await module.exclusive(() => {
      if (!pushed(module, sent)) files.shift();
      return next();
    });
  }
}

/**
 * In a turn: the first batch a session sends (the push its `open` carries) and whether it is all
 * the module has to send now (`last`; true too when there is nothing to send).
 */
export function firstBatch(module: SyncHost, secure: boolean): { batch?: ChangeBatch; last: boolean } {
  const files = outboundFiles(module, secure);
  for (const [i, name] of files.entries()) {
    const batch = collectBatch(module, name);
    if (!batch) continue;
    const last = i === files.length - 1 && (module.notebox.file(name)?.meta.ctr ?? 0) <= batch.through;
    return { batch, last };
  }
  return { last: true };
}

/** Notefiles with changes to send: outbound queues and databases (secure ones only over TLS). */
function outboundFiles(module: SyncHost, secure: boolean): string[] {
  const box = module.notebox;
  const out: string[] = [];
  for (const file of box.files()) {
    const kind = file.kind;
    if (kind.direction === "local" || kind.direction === "in") continue;
    if (kind.secure && !secure) continue;
    if (file.meta.ctr > (box.trackerPosition(SYNC_TRACKER, file.name) ?? 0)) out.push(file.name);
  }
  return out.sort(byQueuesFirst);
}

/** The next batch of a notefile's changes for the hub, or undefined when none is left. */
export function collectBatch(module: SyncHost, name: string): ChangeBatch | undefined {
  const box = module.notebox;
  const file = box.file(name);
  if (!file) return undefined;
  const after = box.trackerPosition(SYNC_TRACKER, name) ?? 0;
  if (file.meta.ctr <= after) return undefined;
  const batch = collectChanges(file, after, BATCH_LIMITS.notes, true);
  const notes: NoteRecord[] = [];
  let bytes = 0;
  let through = batch.position;
  // Sizes are JSON characters, not bytes: close enough to keep a batch under its limit. Each
  // note counts its size's upper bound (no JSON written) until the batch might reach the limit;
  // from then on, exact sizes.
  let exact = false;
  for (const note of batch.notes) {
    const record = toRecord(note);
    let size = jsonLengthBound(record);
    if (!exact && bytes + size > BATCH_LIMITS.bytes) {
      exact = true;
      bytes = notes.reduce((sum, sent) => sum + JSON.stringify(sent).length, 0);
    }
    if (exact) size = JSON.stringify(record).length;
    if (notes.length > 0 && bytes + size > BATCH_LIMITS.bytes) {
      through = note.change - 1;
      break;
    }
    if (arrivedUnchanged(note)) continue; // no echo of the hub's own change
    notes.push(record);
    bytes += size;
  }
  return { file: name, after, through, notes };
}

/** The hub acknowledged a batch: the tracker moves, sent queue notes go, tombstones may go. */
export function pushed(module: SyncHost, batch: ChangeBatch): boolean {
  const box = module.notebox;
  const file = box.file(batch.file);
  if (!file) return false;
  if ((box.trackerPosition(SYNC_TRACKER, batch.file) ?? 0) !== batch.after) {
    box.clearTrackerPosition(SYNC_TRACKER, batch.file);
    return true;
  }
  box.setTrackerPosition(SYNC_TRACKER, batch.file, batch.through);
  if (file.kind.queue) {
    box.removeNotesThrough(file, batch.through);
  } else {
    purgeTombstones(box, file);
  }
  return file.meta.ctr > batch.through;
}

/** Queues before databases, then by name: the hub sees events in the order they happened. */
function byQueuesFirst(a: string, b: string): number {
  const qa = notefileKind(a)?.queue ? 0 : 1;
  const qb = notefileKind(b)?.queue ? 0 : 1;
  return qa - qb || (a < b ? -1 : a > b ? 1 : 0);
}
