import type { JsonObject } from "../../core/json.js";
import type { DeviceRecord } from "../store/records.js";

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

/** One open sync session (in memory, or in the store shared by several hub processes: SessionTable). */
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
  /** The session record's document; each write sets its `period` (and events, close reason) on it and writes it whole. */
  readonly doc: JsonObject;
  readonly traffic: SessionTraffic;
  /** Events the session made. */
  events: number;
  /** Notefiles deleted on the hub that this session's `open` listed: the only ones its `close` confirms. */
  readonly toldDeleted: Set<string>;
}

/**
 * The open sessions by token. A session is live until it closes or has been idle for `idleMs` of
 * hub time; an expired one is answered `{session-expired}` and handed to `sweep` once. Called in
 * the transaction of the message: `add` and `save` take effect with its commit.
 */
export interface SessionTable {
  readonly idleMs: number;
  /** A session opened (kept once the transaction commits). */
  add(session: SyncSession): Promise<void>;
  /** The live session of a token (an expired one stays until swept). */
  get(token: string, now: number): Promise<SyncSession | undefined>;
  /**
   * As `get`, with the session's device where the table reads it in the same step (a table several
   * processes share: one statement); `device` left out when it does not (read it from the store).
   */
  find(
    token: string,
    now: number,
  ): Promise<{ session: SyncSession; device?: DeviceRecord | null } | undefined>;
  /** The session changed by a message (its counts, its last message): kept as it is now. */
  save(session: SyncSession): Promise<void>;
  remove(session: SyncSession): Promise<void>;
  /** The device's sessions still held (live or not yet swept). */
  ofDevice(deviceUid: string): Promise<SyncSession[]>;
  /** Takes out the sessions idle for longer than `idleMs` (call it in a transaction that ends them). */
  sweep(now: number): Promise<SyncSession[]>;
  /** Sessions open (opened through this process, for a table shared by several). */
  readonly size: number;
}

/**
 * The sessions of one hub process, in memory only: a hub restart forgets them and the modules
 * open anew (SQLite: one process). `afterCommit` is the store's.
 */
export class SyncSessions implements SessionTable {
  readonly #byToken = new Map<string, SyncSession>();
  readonly #byDevice = new Map<string, Set<SyncSession>>();

  constructor(
    readonly idleMs: number,
    private readonly afterCommit: (action: () => void) => void = (action) => action(),
  ) {}

  async add(session: SyncSession): Promise<void> {
    this.afterCommit(() => this.#add(session));
  }

  #add(session: SyncSession): void {
    this.#byToken.set(session.token, session);
    let set = this.#byDevice.get(session.deviceUid);
    if (!set) this.#byDevice.set(session.deviceUid, (set = new Set()));
    set.add(session);
  }

  async get(token: string, now: number): Promise<SyncSession | undefined> {
    const session = this.#byToken.get(token);
    if (!session || now - session.lastSeenMs > this.idleMs) return undefined;
    return session;
  }

  async find(token: string, now: number): Promise<{ session: SyncSession } | undefined> {
    const session = await this.get(token, now);
    return session && { session };
  }

  /** The session object in memory is the one kept. */
  async save(): Promise<void> {}

  async remove(session: SyncSession): Promise<void> {
    this.#remove(session);
    // Also once the transaction commits: an `add` of the same transaction lands only then.
    this.afterCommit(() => this.#remove(session));
  }

  #remove(session: SyncSession): void {
    if (this.#byToken.get(session.token) === session) this.#byToken.delete(session.token);
    const set = this.#byDevice.get(session.deviceUid);
    set?.delete(session);
    if (set?.size === 0) this.#byDevice.delete(session.deviceUid);
  }

  async ofDevice(deviceUid: string): Promise<SyncSession[]> {
    return [...(this.#byDevice.get(deviceUid) ?? [])];
  }

  async sweep(now: number): Promise<SyncSession[]> {
    const expired: SyncSession[] = [];
    for (const session of this.#byToken.values()) {
      if (now - session.lastSeenMs > this.idleMs) expired.push(session);
    }
    for (const session of expired) this.#remove(session);
    return expired;
  }

  get size(): number {
    return this.#byToken.size;
  }
}
