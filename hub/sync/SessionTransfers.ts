import type { Clock } from "../../core/Clock.js";
import type { NotefileKind } from "../../core/NotefileKind.js";
import { kindOfGoodName, notefileNameFault } from "../../core/notefileNames.js";
import { deviceEventUid, eventRequest } from "../../protocol/eventUid.js";
import { mergeNote } from "../../protocol/merge.js";
import {
  BATCH_LIMITS,
  SYNC_ERRORS,
  type ChangeBatch,
  type AckReply,
  type AckRequest,
  type CloseRequest,
  type ProtocolReply,
  type PullReply,
  type PullRequest,
  type PushReply,
  type PushRequest,
} from "../../protocol/messages.js";
import type { NoteRecord as ProtocolNote } from "../../protocol/NoteRecord.js";
import { MAX_BATCH_NOTES } from "../../protocol/readMessage.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import type { EventService, NewEvent } from "../events/EventService.js";
import { md5Hex } from "../md5.js";
import type { HubStore } from "../store/HubStore.js";
import { fromProtocolNote, toProtocolNote } from "../store/noteVersions.js";
import type { DeviceRecord, HealthLogRecord } from "../store/records.js";
import { jsonBytes, refuse, type SessionRecords, type SyncTransport } from "./SessionRecords.js";
import { eventBaseOf, type EventBase, noteEvent } from "./syncDocuments.js";
import type { SyncPlaces } from "./SyncPlaces.js";
import type { SyncSession } from "./SyncSessions.js";

/** System notefiles whose notes also go to the device's health log. */
const HEALTH_FILES = new Set(["_health.qo", "_health_host.qo"]);

export interface SessionTransferParts {
  readonly store: HubStore;
  readonly clock: Clock;
  readonly events: EventService;
  readonly places: SyncPlaces;
  readonly records: SessionRecords;
}

/**
 * The notefile messages of an open session: `push` (the module's changes: queue notes become
 * events, database notes merge), `pull` and `ack` (the hub's changes, until the module
 * acknowledges them), and `close`. Each runs in the store transaction of its message.
 */
export class SessionTransfers {
  constructor(private readonly p: SessionTransferParts) {}

  async handle(
    request: PushRequest | PullRequest | AckRequest | CloseRequest,
    transport: SyncTransport,
    bytes: number,
  ): Promise<ProtocolReply> {
    const found = await this.p.records.find(request.token);
    if ("refused" in found) return found.refused;
    const { session, device } = found;
    switch (request.type) {
      case "push": {
        const reply = await this.push(session, device, request, transport);
        await this.p.records.account(session, bytes, reply);
        return reply;
      }
      case "pull": {
        const reply = await this.#pull(session, device, request, transport);
        await this.p.records.account(session, bytes, reply);
        return reply;
      }
      case "ack": {
        const reply = await this.#ack(device, request, transport);
        await this.p.records.account(session, bytes, reply);
        return reply;
      }
      case "close": {
        const reply: ProtocolReply = { v: PROTOCOL_VERSION };
        session.traffic.bytesSent += bytes;
        session.traffic.bytesReceived += jsonBytes(reply);
        session.lastSeenMs = this.p.clock.now();
        // Only tombstones this session's open listed go: a close cannot drop any other.
        const confirmed = (request.deleted ?? []).filter((name) => session.toldDeleted.has(name));
        if (confirmed.length > 0) await this.p.store.notefiles.forgetDeletedNotefiles(device.uid, confirmed);
        await this.p.records.end(session, request.why, session.lastSeenMs, request.usage, device);
        return reply;
      }
    }
  }

  /** A notefile a message names, checked for the direction it moves in and the transport. */
  #notefile(name: string, transport: SyncTransport, direction: "up" | "down"): NotefileKind {
    const fault = notefileNameFault(name, { allowReserved: true });
    if (fault) throw refuse(SYNC_ERRORS.badRequest, `${name} is not a notefile name (${fault})`);
    const kind = kindOfGoodName(name);
    if (kind.direction === "local") {
      throw refuse(SYNC_ERRORS.badRequest, `${name}: .dbx notefiles never leave the module`);
    }
    if (direction === "up" && kind.direction === "in") {
      throw refuse(SYNC_ERRORS.badRequest, `${name}: inbound queues move from the hub to the module only`);
    }
    if (direction === "down" && kind.direction === "out") {
      throw refuse(SYNC_ERRORS.badRequest, `${name}: outbound queues move from the module to the hub only`);
    }
    if (kind.secure && !transport.secure) {
      throw refuse(SYNC_ERRORS.badRequest, `${name} moves only in sessions over TLS`);
    }
    return kind;
  }

  /**
   * The module's changes of one notefile: queue notes become events, database notes merge (a
   * `push`, or the push an `open` carries: SessionOpening calls it in the open's transaction).
   */
  async push(
    session: SyncSession,
    device: DeviceRecord,
    request: ChangeBatch,
    transport: SyncTransport,
  ): Promise<PushReply> {
    const kind = this.#notefile(request.file, transport, "up");
    const { file } = request;
    const now = this.p.clock.now();
    const base = eventBaseOf(device, session);
    const events: NoteEvent[] = [];
    let merged = 0;
    for (const note of request.notes) {
      if (kind.queue) {
        if (!note.deleted) events.push(this.#noteEvent(session, device, base, file, note, true, now));
        continue;
      }
      const stored = await this.p.store.notefiles.getNote(device.uid, file, note.id);
      const outcome = mergeNote(stored && toProtocolNote(stored), note);
      if (!outcome.changed) continue;
      // The device's version kept as it came is never sent back to it; a merged one is.
      const { change: _change, ...version } = fromProtocolNote(outcome.note, 0, outcome.note === note);
      await this.p.store.notefiles.putVersion(device.uid, file, version, now);
      events.push(this.#noteEvent(session, device, base, file, note, false, now));
      merged++;
    }
    const stored = await this.#recordNoteEvents(session, device, file, events);
    if (kind.queue) merged = stored;
    session.traffic.notesSent += request.notes.length;
    return { v: PROTOCOL_VERSION, merged };
  }

  /** A device note's event, its UID derived from its content. */
  #noteEvent(
    session: SyncSession,
    device: DeviceRecord,
    base: EventBase,
    file: string,
    note: ProtocolNote,
    queue: boolean,
    now: number,
  ): NoteEvent {
    // The body's canonical text serves both its stored document and its UID.
    const { data, text, body, whenSec } = noteEvent(
      base,
      file,
      note,
      eventRequest(note, queue),
      queue,
      now / 1000,
      this.p.places.located,
    );
    const event = {
      uid: deviceEventUid(device.uid, session.trackerSession, file, note, md5Hex, body),
      projectUid: device.projectUid,
      deviceUid: device.uid,
      sessionUid: session.uid,
      file,
      data,
      dataText: text,
      whenSec,
    };
    return { event, note };
  }

  /**
   * Stores the events of a batch's notes, each once per content, in one store call (health notes
   * also go to the device's health log): how many were stored now.
   */
  async #recordNoteEvents(
    session: SyncSession,
    device: DeviceRecord,
    file: string,
    events: readonly NoteEvent[],
  ): Promise<number> {
    const stored = await this.p.events.recordOnce(events.map((e) => e.event));
    session.events += stored.length;
    if (HEALTH_FILES.has(file) && stored.length > 0) {
      const notes = new Map(events.map((e) => [e.event.uid, e.note]));
      for (const record of stored)
        await this.p.store.telemetry.addHealthLog(
          healthEntry(device, file, notes.get(record.uid)!, record.whenSec),
        );
    }
    return stored.length;
  }

  /** The hub's changes of one notefile after its tracker for the device (not yet acknowledged). */
  async #pull(
    session: SyncSession,
    device: DeviceRecord,
    request: PullRequest,
    transport: SyncTransport,
  ): Promise<PullReply> {
    this.#notefile(request.file, transport, "down");
    const notefiles = this.p.store.notefiles;
    const max = Math.min(request.max ?? MAX_BATCH_NOTES, MAX_BATCH_NOTES);
    const after = await notefiles.trackerPosition(device.uid, request.file, SYNC_TRACKER);
    const batch = await notefiles.changesAfter(device.uid, request.file, SYNC_TRACKER, after, max);
    const notes: ProtocolNote[] = [];
    let through = batch.through;
    let more = batch.more;
    let size = 0;
    for (const stored of batch.notes) {
      const note = toProtocolNote(stored);
      const noteBytes = jsonBytes(note);
      if (notes.length > 0 && size + noteBytes > BATCH_LIMITS.bytes) {
        // The rest waits for the next batch: this one covers the changes before it.
        through = stored.change - 1;
        more = true;
        break;
      }
      notes.push(note);
      size += noteBytes;
    }
    session.traffic.notesReceived += notes.length;
    return { v: PROTOCOL_VERSION, file: request.file, after, through, notes, more };
  }

  /**
   * The module merged a pulled batch: the tracker moves to `through` if it stands at `after` (a
   * repeated ack that finds it at `through` already changes nothing), else it starts again from 0.
   * Delivered inbound queue notes go; tombstones every tracker has passed go.
   */
  async #ack(device: DeviceRecord, request: AckRequest, transport: SyncTransport): Promise<AckReply> {
    const kind = this.#notefile(request.file, transport, "down");
    const notefiles = this.p.store.notefiles;
    const nf = await notefiles.getNotefile(device.uid, request.file);
    const last = nf ? nf.nextChange - 1 : 0;
    if (request.through > last) {
      throw refuse(
        SYNC_ERRORS.badRequest,
        `through ${request.through} is past the hub's last change (${last}) of ${request.file}`,
      );
    }
    // A notefile the hub does not hold has nothing to track (its pull was an empty batch).
    if (!nf) return { v: PROTOCOL_VERSION };
    const position = await notefiles.trackerPosition(device.uid, request.file, SYNC_TRACKER);
    if (position === request.after) {
      await notefiles.setTrackerPosition(device.uid, request.file, SYNC_TRACKER, request.through);
      if (kind.queue) await notefiles.removeDelivered(device.uid, request.file, request.through);
      else await notefiles.purgeTombstones(device.uid, request.file);
      return { v: PROTOCOL_VERSION };
    }
    if (position === request.through) return { v: PROTOCOL_VERSION };
    await notefiles.setTrackerPosition(device.uid, request.file, SYNC_TRACKER, 0);
    return { v: PROTOCOL_VERSION, reset: true };
  }
}

/** A device note's event, before it is stored, and the note it came from. */
interface NoteEvent {
  readonly event: NewEvent & { uid: string };
  readonly note: ProtocolNote;
}

/** A health note as the device's health log keeps it. */
function healthEntry(
  device: DeviceRecord,
  file: string,
  note: ProtocolNote,
  whenSec: number,
): HealthLogRecord {
  const body = note.body ?? {};
  return {
    projectUid: device.projectUid,
    deviceUid: device.uid,
    whenSec,
    alert: body.alert === true,
    text: typeof body.text === "string" ? body.text : JSON.stringify(body),
    type: typeof body.type === "string" ? body.type : file === "_health_host.qo" ? "host" : "health",
  };
}
