import type { Clock } from "../../core/Clock.js";
import { jsonByteLength, type JsonObject } from "../../core/json.js";
import { notefileKind } from "../../core/NotefileKind.js";
import {
  SYNC_ERRORS,
  type OpenClose,
  type ProtocolReply,
  type SessionUsage,
} from "../../protocol/messages.js";
import type { EventService } from "../events/EventService.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";
import { eventBase, sessionPeriod } from "./syncDocuments.js";
import type { SessionTable, SyncSession } from "./SyncSessions.js";
import { refusal, SyncRefusal } from "./SyncRefusal.js";

/**
 * What the parts of the hub's sync service share (SyncService.ts composes them): the open
 * sessions, their lookup by token, and their records (counts, the session record, its end).
 */

/** How a message reached the hub: over TLS (HTTPS, or in process) or not. */
export interface SyncTransport {
  readonly secure: boolean;
  /** The request's size on the wire, when the transport knows it (else its JSON is measured). */
  readonly bytes?: number;
  /** The address the message came from (HTTP), for the hello limits; none in process. */
  readonly source?: string;
}

/** The notefile of the hub's own session events. */
export const SESSION_FILE = "_session.qo";
/** How often an open session's record is rewritten with its counts, at most (hub time). */
const RECORD_EVERY_MS = 1000;

/** Bytes of a message's JSON (what crossed the wire), measured without writing it. */
export function jsonBytes(message: unknown): number {
  try {
    return jsonByteLength(message);
  } catch {
    return 0;
  }
}

/**
 * The session record's document: the session's, its period and events, and `ended` members, set
 * on the session's own document (each write sets its period and events anew, in the order the
 * first one added them; an ended session writes no more). Not a copy: a spread followed by more
 * members makes V8, on Node 20, build a new hidden class at every call (some 15-25 µs), and
 * `Object.assign` of its twenty-odd members into an empty object leaves the copy in V8's slow
 * dictionary mode (2.5 KiB made a session, and slower to write as JSON).
 */
function sessionData(session: SyncSession, now: number, ended: JsonObject | null): JsonObject {
  const data = session.doc;
  data.period = sessionPeriod(session, now);
  data.events = session.events;
  return ended ? Object.assign(data, ended) : data;
}

/** The `session.end` event's document: `base` (the session's event base, made for it) and its members. */
function endEvent(
  base: JsonObject,
  why: string,
  now: number,
  usage: SessionUsage | undefined,
  period: JsonObject,
): JsonObject {
  base.req = "session.end";
  base.file = SESSION_FILE;
  base.when = Math.floor(now / 1000);
  base.body = usage ? { why, usage, period } : { why, period };
  return base;
}

export const refuse = (code: string, text: string): SyncRefusal => new SyncRefusal(code, text);
export const expired = (): SyncRefusal =>
  refuse(SYNC_ERRORS.session, "the session token is unknown or expired: open a new session");
export const disabled = (): ProtocolReply =>
  refusal(SYNC_ERRORS.disabled, "the device is disabled: enable it in its project to sync");

/** A notefile the hub sends down to the module (inbound queues, databases; secure ones over TLS only). */
function movesDown(name: string, secure: boolean): boolean {
  const kind = notefileKind(name);
  return (
    kind !== undefined && kind.direction !== "out" && kind.direction !== "local" && (secure || !kind.secure)
  );
}

/** A session found by its token, or the refusal to answer. */
export type FoundSession = { session: SyncSession; device: DeviceRecord } | { refused: ProtocolReply };

export class SessionRecords {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly events: EventService,
    readonly sessions: SessionTable,
  ) {}

  /**
   * The session of a token and its device, or the refusal to answer: the token is unknown or
   * expired, the device is gone, or it was disabled (which ends the session).
   */
  async find(token: string): Promise<FoundSession> {
    const found = await this.sessions.find(token, this.clock.now());
    if (!found) return { refused: expired().reply() };
    const { session } = found;
    const device =
      found.device === undefined ? await this.store.devices.getDevice(session.deviceUid) : found.device;
    if (!device || device.projectUid !== session.projectUid) {
      await this.sessions.remove(session);
      return { refused: expired().reply() };
    }
    if (device.disabled) {
      await this.end(session, "device disabled", this.clock.now());
      return { refused: disabled() };
    }
    return { session, device };
  }

  /**
   * Counts a message and its reply. The session record is rewritten with the counts at most once a
   * second of hub time while the session is open (and always when it ends): a sync of thousands of
   * notes would otherwise spend as much on its session record as on its notes. The session itself
   * is kept as it now is (for a table several hub processes share, written in the transaction).
   */
  async account(session: SyncSession, requestBytes: number, reply: ProtocolReply): Promise<void> {
    const now = this.clock.now();
    session.traffic.bytesSent += requestBytes;
    session.traffic.bytesReceived += jsonBytes(reply);
    session.lastSeenMs = now;
    if (now - session.recordedMs >= RECORD_EVERY_MS) await this.#write(session, now, null);
    await this.sessions.save(session);
  }

  /**
   * Counts an `open` that also closes its session (its folded `close`) and ends the session: the
   * record is written once, ended; the usage the module sent (its count before this open) takes
   * in the open's own bytes both ways and the notes of its push, as the hub counts them.
   */
  async closeWithOpen(
    session: SyncSession,
    requestBytes: number,
    reply: ProtocolReply,
    close: OpenClose,
    device: DeviceRecord,
  ): Promise<void> {
    const replyBytes = jsonBytes(reply);
    session.traffic.bytesSent += requestBytes;
    session.traffic.bytesReceived += replyBytes;
    const u = close.usage;
    const usage = u && {
      bytes_sent: u.bytes_sent + requestBytes,
      bytes_received: u.bytes_received + replyBytes,
      notes_sent: u.notes_sent + session.traffic.notesSent,
      notes_received: u.notes_received,
    };
    await this.end(session, close.why, session.lastSeenMs, usage, device);
  }

  async #write(session: SyncSession, now: number, ended: JsonObject | null): Promise<void> {
    session.recordedMs = now;
    await this.store.telemetry.addSession({
      uid: session.uid,
      deviceUid: session.deviceUid,
      projectUid: session.projectUid,
      beganSec: Math.floor(session.beganMs / 1000),
      endedSec: ended ? Math.floor(now / 1000) : null,
      firstSync: session.firstSync,
      data: sessionData(session, now, ended),
    });
  }

  /**
   * Ends a session: its record, its `session.end` event, the device no longer connected by it.
   * `known`: the device as read in this transaction already (a `close`), not read again.
   */
  async end(
    session: SyncSession,
    why: string,
    now: number,
    usage?: SessionUsage,
    known?: DeviceRecord,
  ): Promise<void> {
    await this.sessions.remove(session);
    await this.#write(session, now, { why_session_closed: why });
    const device = known ?? (await this.store.devices.getDevice(session.deviceUid));
    if (!device || device.projectUid !== session.projectUid) return;
    await this.events.record({
      projectUid: device.projectUid,
      deviceUid: device.uid,
      file: SESSION_FILE,
      sessionUid: session.uid,
      data: endEvent(eventBase(device, session), why, now, usage, sessionPeriod(session, now)),
    });
    // The device was last heard from at the session's last message; it is no longer connected
    // by this session (unless another continuous one holds it).
    // Nothing to write when the session's open already recorded its last message and it held
    // no connection (a periodic session's open, push and close at one moment of hub time).
    const lastActivity = Math.max(device.lastActivity ?? 0, Math.min(now, session.lastSeenMs));
    const release =
      session.continuous && !(await this.sessions.ofDevice(device.uid)).some((s) => s.continuous);
    if (lastActivity === device.lastActivity && !(release && device.connected)) return;
    await this.store.devices.putDevice(
      {
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        lastActivity,
        ...(release ? { connected: false } : {}),
      },
      device,
    );
  }

  /**
   * What the open tells the module, in one store read: the notefiles deleted on the hub that it is
   * to delete too, the notefiles with changes for it (as `pendingFiles`) and its pending signals.
   */
  async outlook(
    deviceUid: string,
    secure: boolean,
  ): Promise<{ deleted: string[]; files: string[]; signals: number }> {
    const { deleted, changed, signals } = await this.store.notefiles.syncOutlook(deviceUid);
    return {
      deleted: deleted.filter((name) => movesDown(name, secure)),
      files: changed.filter((name) => movesDown(name, secure)),
      signals,
    };
  }

  /** Notefiles with changes for the device (hub to module: inbound queues and databases), as the open tells them. */
  async pendingFiles(deviceUid: string, secure: boolean): Promise<string[]> {
    return (await this.outlook(deviceUid, secure)).files;
  }
}
