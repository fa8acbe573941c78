import type { JsonObject } from "../../core/json.js";

/** The traffic of one session as the hub counts it: every message's JSON both ways, notes each way. */
export interface SessionTraffic {
  /** Bytes of the module's requests (what the module sent). */
  bytesSent: number;
  /** Bytes of the hub's replies (what the module received). */
  bytesReceived: number;
  /** Notes the module pushed, and notes it pulled. */
  notesSent: number;
  notesReceived: number;
}

/** One open sync session, kept in memory only: a hub restart forgets it and the module opens anew. */
export interface SyncSession {
  readonly token: string;
  /** SessionUID: the session record and the events of the session. */
  readonly uid: string;
  readonly deviceUid: string;
  readonly projectUid: string;
  /** The tracker session both ends agreed on at `open` (event UIDs include it). */
  readonly trackerSession: string;
  /** Opened over TLS (HTTPS or in process). */
  readonly secure: boolean;
  /** Held open by the module (continuous mode): the device shows as connected meanwhile. */
  readonly continuous: boolean;
  readonly transport: string;
  readonly beganMs: number;
  lastSeenMs: number;
  /** When the session record was last written (hub time). */
  recordedMs: number;
  readonly firstSync: boolean;
  /** The session record's document, less its `period` (rewritten with it at every message). */
  readonly doc: JsonObject;
  readonly traffic: SessionTraffic;
  /** Events the session made. */
  events: number;
  /** Notefiles deleted on the hub that this session's `open` listed: the only ones its `close` confirms. */
  readonly toldDeleted: Set<string>;
}

/**
 * The open sessions by token. A session is live until it closes or has been idle for `idleMs` of
 * hub time; an expired one is answered `{session-expired}` and handed to `sweep` once.
 */
export class SyncSessions {
  readonly #byToken = new Map<string, SyncSession>();
  readonly #byDevice = new Map<string, Set<SyncSession>>();

  constructor(readonly idleMs: number) {}

  add(session: SyncSession): void {
    this.#byToken.set(session.token, session);
    let set = this.#byDevice.get(session.deviceUid);
    if (!set) this.#byDevice.set(session.deviceUid, (set = new Set()));
    set.add(session);
  }

  /** The live session of a token (an expired one stays until swept). */
  get(token: string, now: number): SyncSession | undefined {
    const session = this.#byToken.get(token);
    if (!session || now - session.lastSeenMs > this.idleMs) return undefined;
    return session;
  }

  remove(session: SyncSession): void {
    if (this.#byToken.get(session.token) === session) this.#byToken.delete(session.token);
    const set = this.#byDevice.get(session.deviceUid);
    set?.delete(session);
    if (set?.size === 0) this.#byDevice.delete(session.deviceUid);
  }

  /** The device's sessions still held (live or not yet swept). */
  ofDevice(deviceUid: string): SyncSession[] {
    return [...(this.#byDevice.get(deviceUid) ?? [])];
  }

  /** Takes out the sessions idle for longer than `idleMs`. */
  sweep(now: number): SyncSession[] {
    const expired: SyncSession[] = [];
    for (const session of this.#byToken.values()) {
      if (now - session.lastSeenMs > this.idleMs) expired.push(session);
    }
    for (const session of expired) this.remove(session);
    return expired;
  }

  get size(): number {
    return this.#byToken.size;
  }
}
