import type { JsonObject } from "../../core/json.js";
import type { ClusterStore, SessionRow } from "../store/ClusterStore.js";
import type { DeviceRecord } from "../store/records.js";
import type { SessionTable, SessionTraffic, SyncSession } from "./SyncSessions.js";

/** A session as its row keeps it (JSON: no Set, no infinity). */
interface StoredSession {
  token: string;
  uid: string;
  deviceUid: string;
  projectUid: string;
  trackerSession: string;
  secure: boolean;
  continuous: boolean;
  transport: string;
  beganMs: number;
  lastSeenMs: number;
  recordedMs: number | null;
  firstSync: boolean;
  doc: JsonObject;
  traffic: SessionTraffic;
  events: number;
  toldDeleted: string[];
}

/**
 * The open sessions in the store's table, shared by every hub process over it: any process finds
 * the session a module opened through another (a round-robin in front of them sends each message
 * anywhere). Each message reads its session's row (locked until its transaction ends, so one
 * session's messages run one at a time wherever they land) and writes it back in its transaction.
 */
export class SharedSyncSessions implements SessionTable {
  /** Tokens opened through this process and not yet ended here (`size`). */
  readonly #here = new Set<string>();

  constructor(
    readonly idleMs: number,
    private readonly cluster: ClusterStore,
    private readonly afterCommit: (action: () => void) => void,
  ) {}

  async add(session: SyncSession): Promise<void> {
    await this.cluster.putSession(rowOf(session));
    this.afterCommit(() => this.#here.add(session.token));
  }

  async get(token: string, now: number): Promise<SyncSession | undefined> {
    return (await this.find(token, now))?.session;
  }

  async find(
    token: string,
    now: number,
  ): Promise<{ session: SyncSession; device: DeviceRecord | null } | undefined> {
    const row = await this.cluster.getSession(token);
    const session = row && sessionOf(row);
    if (!session || now - session.lastSeenMs > this.idleMs) return undefined;
    return { session, device: row.device };
  }

  async save(session: SyncSession): Promise<void> {
    await this.cluster.updateSession(rowOf(session));
  }

  async remove(session: SyncSession): Promise<void> {
    await this.cluster.deleteSession(session.token);
    this.afterCommit(() => this.#here.delete(session.token));
  }

  async ofDevice(deviceUid: string): Promise<SyncSession[]> {
    return (await this.cluster.sessionsOfDevice(deviceUid)).map(sessionOf);
  }

  async sweep(now: number): Promise<SyncSession[]> {
    const gone = (await this.cluster.takeIdleSessions(now - this.idleMs)).map(sessionOf);
    for (const session of gone) this.afterCommit(() => this.#here.delete(session.token));
    return gone;
  }

  get size(): number {
    return this.#here.size;
  }
}

export function rowOf(session: SyncSession): SessionRow {
  const stored: StoredSession = {
    ...session,
    recordedMs: Number.isFinite(session.recordedMs) ? session.recordedMs : null,
    toldDeleted: [...session.toldDeleted],
  };
  return {
    token: session.token,
    deviceUid: session.deviceUid,
    lastSeen: session.lastSeenMs,
    data: JSON.stringify(stored),
  };
}

export function sessionOf(row: SessionRow): SyncSession {
  const stored = JSON.parse(row.data) as StoredSession;
  return {
    ...stored,
    recordedMs: stored.recordedMs ?? Number.NEGATIVE_INFINITY,
    toldDeleted: new Set(stored.toldDeleted),
  };
}
